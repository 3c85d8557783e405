/** The `http` provider against a real local HTTP server playing the messaging platform. */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createApiKey,
  createTenant,
  FAST,
  MESSAGING_AGENCY,
  type MessagingTenant,
  nextPhone,
} from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import {
  accepted,
  eventsOf,
  inbound,
  send,
  startFakePlatform,
  storedMessages,
  type FakePlatform,
  type PlatformRequest,
} from './support.ts';

let platform: FakePlatform;
let app: FastifyInstance;
let agency: MessagingTenant;

beforeAll(async () => {
  platform = await startFakePlatform();
  app = await buildTestApp({
    MESSAGING_PROVIDER: 'http',
    MESSAGING_API_URL: platform.apiUrl,
    MESSAGING_API_TOKEN: 'platform-token',
    MESSAGING_TIMEOUT_MS: '400',
  });
  agency = await createTenant(app, MESSAGING_AGENCY);
  expectStatus(await inbound(app, agency.org.id, agency.messaging.contactId, 'Hola'), 201);
});
afterAll(async () => {
  await app.close();
  await platform.close();
});
beforeEach(() => {
  platform.reset();
});

describe('the http provider', () => {
  it('posts free text to {MESSAGING_API_URL}/{phoneNumberId}/messages with the bearer token and keeps its id', async () => {
    platform.behaviour = { status: 200, body: accepted('wamid.TEXT1') };
    const message = expectStatus(
      await send(
        app,
        agency.secret.key,
        agency.messaging.contactId,
        { body: 'Hola Lucía' },
        { 'idempotency-key': 'text-0001' },
      ),
      201,
    ).data;
    expect(message).toMatchObject({ chatMessageId: 'wamid.TEXT1', status: 'SENT', direction: 'OUTBOUND' });
    expect(platform.received).toHaveLength(1);
    const call = platform.received[0] as PlatformRequest;
    expect(call.method).toBe('POST');
    expect(call.url).toBe(`/v21.0/${agency.messaging.providerNumberId}/messages`);
    expect(call.headers.authorization).toBe('Bearer platform-token');
    expect(call.headers['idempotency-key']).toBe(`${agency.org.id}:text-0001`);
    expect(call.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: agency.messaging.contactPhone.slice(1),
      type: 'text',
      text: { preview_url: false, body: 'Hola Lucía' },
    });
    // A real platform sends its own receipts: the message stays SENT until one arrives.
    expect((await storedMessages(agency.org.id, agency.messaging.contactId)).at(-1)?.status).toBe('SENT');
  });

  it('sends a template by name and language with named body parameters', async () => {
    platform.behaviour = { status: 200, body: accepted('wamid.TPL1') };
    expectStatus(
      await send(app, agency.secret.key, agency.messaging.contactId, {
        templateId: agency.messaging.approvedId,
        variables: { name: 'Lucía', street: 'Calle Larios' },
      }),
      201,
    );
    expect(platform.received[0]?.body).toMatchObject({
      type: 'template',
      template: {
        name: 'visit_followup',
        language: { code: 'es' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', parameter_name: 'name', text: 'Lucía' },
              { type: 'text', parameter_name: 'street', text: 'Calle Larios' },
            ],
          },
        ],
      },
    });
  });

  it('answers 502 when the platform answers 500 (tried twice), keeps the message FAILED, changes nothing else, and lets the same key be retried', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    expectStatus(await inbound(app, fresh.org.id, fresh.messaging.contactId, 'Hola'), 201);
    const before = expectStatus(
      await api(app, 'GET', `/v1/conversations/${fresh.messaging.contactId}`, { key: fresh.secret.key }),
      200,
    ).data;
    platform.behaviour = {
      status: 500,
      body: { error: { message: 'Service temporarily unavailable', code: 2 } },
    };
    const headers = { 'idempotency-key': 'retry-after-502' };
    const failed = await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'Hola' }, headers);
    const error = expectError(failed, 502, 'MESSAGING_ERROR') as Record<string, unknown>;
    expect(error.message).toContain('500');
    expect(error.message).toContain('Service temporarily unavailable');
    expect(platform.received).toHaveLength(2);
    const stored = (await storedMessages(fresh.org.id, fresh.messaging.contactId)).filter(
      (m) => m.direction === 'OUTBOUND',
    );
    expect(stored).toEqual([expect.objectContaining({ id: error.messageId, status: 'FAILED' })]);
    expect(stored[0]?.failure_reason).toContain('500');
    // Nothing else: no message.sent, the conversation's last message is still the inbound one.
    expect(await eventsOf(fresh.org.id, 'message.sent')).toHaveLength(0);
    const statusEvents = await eventsOf(fresh.org.id, 'message.status_changed');
    expect(
      statusEvents.map((e) => [e.data.message.id, e.data.previousStatus, e.data.message.status]),
    ).toEqual([[error.messageId, 'QUEUED', 'FAILED']]);
    const after = expectStatus(
      await api(app, 'GET', `/v1/conversations/${fresh.messaging.contactId}`, { key: fresh.secret.key }),
      200,
    ).data;
    expect(after.lastMessage.id).toBe(before.lastMessage.id);

    // 5xx stores no idempotent answer: the same key runs again, and now succeeds.
    platform.behaviour = { status: 200, body: accepted('wamid.RETRY') };
    const retried = await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'Hola' }, headers);
    expect(expectStatus(retried, 201).data.chatMessageId).toBe('wamid.RETRY');
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(platform.received.at(-1)?.headers['idempotency-key']).toBe(`${fresh.org.id}:retry-after-502`);
    const replay = await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'Hola' }, headers);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('does not retry a 4xx refusal', async () => {
    platform.behaviour = {
      status: 400,
      body: { error: { message: 'Recipient phone number not in allowed list', code: 131030 } },
    };
    const error = expectError(
      await send(app, agency.secret.key, agency.messaging.contactId, { body: 'Hola' }),
      502,
      'MESSAGING_ERROR',
    );
    expect(error.message).toContain('131030');
    expect(platform.received).toHaveLength(1);
  });

  it('answers 502 when the platform does not answer within the time limit, with the message FAILED', async () => {
    platform.behaviour = 'hang';
    const started = Date.now();
    const error = expectError(
      await send(app, agency.secret.key, agency.messaging.contactId, { body: 'Anyone there?' }),
      502,
      'MESSAGING_ERROR',
    ) as Record<string, unknown>;
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error.message).toContain('400 ms');
    expect(platform.received).toHaveLength(1);
    const stored = (await storedMessages(agency.org.id, agency.messaging.contactId)).find(
      (m) => m.id === error.messageId,
    );
    expect(stored?.status).toBe('FAILED');
  });

  it('answers 502 when the platform answers 200 without a message id', async () => {
    platform.behaviour = { status: 200, body: { messages: [] } };
    expectError(
      await send(app, agency.secret.key, agency.messaging.contactId, { body: 'Hola' }),
      502,
      'MESSAGING_ERROR',
    );
  });

  it('never calls the platform for the test organization (sandbox)', async () => {
    const twin = agency.org.testOrganizationId as string;
    const testKey = await createApiKey(app, agency.org.id, { type: 'secret', mode: 'test', ...FAST });
    expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${twin}/messaging-numbers`, { phone: nextPhone() }),
      201,
    );
    const contact = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${twin}/contacts`, {
        firstName: 'Test',
        phone: nextPhone(),
      }),
      201,
    ).data;
    expectStatus(await inbound(app, twin, contact.id, 'Hola'), 201);
    const message = expectStatus(
      await send(app, testKey.key, contact.id, { body: 'Sandbox only' }),
      201,
    ).data;
    expect(message.chatMessageId).toMatch(/^sandbox\./);
    expect(platform.received).toHaveLength(0);
  });
});
