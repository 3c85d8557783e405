/**
 * The `http` provider against a real local HTTP server playing the messaging platform, and the
 * platform's signed inbound hook.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import {
  createMessagingAgency,
  eventsOf,
  FAST,
  inbound,
  nextPhone,
  send,
  storedMessages,
  type MessagingAgency,
} from './support.ts';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** What the platform does with the next requests: answer with a status and body, or never answer. */
type Behaviour = { status: number; body: unknown } | 'hang';

const SECRET = 'hook-secret-for-tests-0123456789';
let platform: Server;
let received: Received[] = [];
let behaviour: Behaviour = { status: 200, body: {} };
const hanging: ServerResponse[] = [];
let app: FastifyInstance;
let agency: MessagingAgency;

beforeAll(async () => {
  platform = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
      });
      if (behaviour === 'hang') {
        hanging.push(response);
        return;
      }
      response.writeHead(behaviour.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(behaviour.body));
    });
  });
  await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
  const { port } = platform.address() as AddressInfo;
  app = await buildTestApp({
    MESSAGING_PROVIDER: 'http',
    MESSAGING_API_URL: `http://127.0.0.1:${port}/v21.0`,
    MESSAGING_API_TOKEN: 'platform-token',
    MESSAGING_TIMEOUT_MS: '400',
    MESSAGING_WEBHOOK_SECRET: SECRET,
  });
  agency = await createMessagingAgency(app);
  expectStatus(await inbound(app, agency.orgId, agency.contactId, 'Hola'), 201);
});
afterAll(async () => {
  for (const response of hanging) response.destroy();
  await app.close();
  await new Promise<void>((resolve) => platform.close(() => resolve()));
});
beforeEach(() => {
  received = [];
  behaviour = { status: 200, body: {} };
});

const accepted = (id: string) => ({
  messaging_product: 'whatsapp',
  contacts: [{ input: '34600000000', wa_id: '34600000000' }],
  messages: [{ id }],
});

describe('the http provider', () => {
  it('posts free text to {MESSAGING_API_URL}/{phoneNumberId}/messages with the bearer token and keeps its id', async () => {
    behaviour = { status: 200, body: accepted('wamid.TEXT1') };
    const message = expectStatus(
      await send(
        app,
        agency.secret,
        agency.contactId,
        { body: 'Hola Lucía' },
        { 'idempotency-key': 'text-0001' },
      ),
      201,
    ).data;
    expect(message).toMatchObject({ chatMessageId: 'wamid.TEXT1', status: 'SENT', direction: 'OUTBOUND' });
    expect(received).toHaveLength(1);
    const call = received[0] as Received;
    expect(call.method).toBe('POST');
    expect(call.url).toBe(`/v21.0/${agency.providerNumberId}/messages`);
    expect(call.headers.authorization).toBe('Bearer platform-token');
    expect(call.headers['idempotency-key']).toBe(`${agency.orgId}:text-0001`);
    expect(call.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: agency.contactPhone.slice(1),
      type: 'text',
      text: { preview_url: false, body: 'Hola Lucía' },
    });
    // A real platform sends its own receipts: the message stays SENT until one arrives.
    expect((await storedMessages(agency.orgId, agency.contactId)).at(-1)?.status).toBe('SENT');
  });

  it('sends a template by name and language with named body parameters', async () => {
    behaviour = { status: 200, body: accepted('wamid.TPL1') };
    expectStatus(
      await send(app, agency.secret, agency.contactId, {
        templateId: agency.approvedId,
        variables: { name: 'Lucía', street: 'Calle Larios' },
      }),
      201,
    );
    expect(received[0]?.body).toMatchObject({
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
    const fresh = await createMessagingAgency(app);
    expectStatus(await inbound(app, fresh.orgId, fresh.contactId, 'Hola'), 201);
    const before = expectStatus(
      await api(app, 'GET', `/v1/conversations/${fresh.contactId}`, { key: fresh.secret }),
      200,
    ).data;
    behaviour = { status: 500, body: { error: { message: 'Service temporarily unavailable', code: 2 } } };
    const headers = { 'idempotency-key': 'retry-after-502' };
    const failed = await send(app, fresh.secret, fresh.contactId, { body: 'Hola' }, headers);
    const error = expectError(failed, 502, 'MESSAGING_ERROR') as Record<string, unknown>;
    expect(error.message).toContain('500');
    expect(error.message).toContain('Service temporarily unavailable');
    expect(received).toHaveLength(2);
    const stored = (await storedMessages(fresh.orgId, fresh.contactId)).filter(
      (m) => m.direction === 'OUTBOUND',
    );
    expect(stored).toEqual([expect.objectContaining({ id: error.messageId, status: 'FAILED' })]);
    expect(stored[0]?.failure_reason).toContain('500');
    // Nothing else: no message.sent, the conversation's last message is still the inbound one.
    expect(await eventsOf(fresh.orgId, 'message.sent')).toHaveLength(0);
    const statusEvents = await eventsOf(fresh.orgId, 'message.status_changed');
    expect(
      statusEvents.map((e) => [e.data.message.id, e.data.previousStatus, e.data.message.status]),
    ).toEqual([[error.messageId, 'QUEUED', 'FAILED']]);
    const after = expectStatus(
      await api(app, 'GET', `/v1/conversations/${fresh.contactId}`, { key: fresh.secret }),
      200,
    ).data;
    expect(after.lastMessage.id).toBe(before.lastMessage.id);

    // 5xx stores no idempotent answer: the same key runs again, and now succeeds.
    behaviour = { status: 200, body: accepted('wamid.RETRY') };
    const retried = await send(app, fresh.secret, fresh.contactId, { body: 'Hola' }, headers);
    expect(expectStatus(retried, 201).data.chatMessageId).toBe('wamid.RETRY');
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(received.at(-1)?.headers['idempotency-key']).toBe(`${fresh.orgId}:retry-after-502`);
    const replay = await send(app, fresh.secret, fresh.contactId, { body: 'Hola' }, headers);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('does not retry a 4xx refusal', async () => {
    behaviour = {
      status: 400,
      body: { error: { message: 'Recipient phone number not in allowed list', code: 131030 } },
    };
    const error = expectError(
      await send(app, agency.secret, agency.contactId, { body: 'Hola' }),
      502,
      'MESSAGING_ERROR',
    );
    expect(error.message).toContain('131030');
    expect(received).toHaveLength(1);
  });

  it('answers 502 when the platform does not answer within the time limit, with the message FAILED', async () => {
    behaviour = 'hang';
    const started = Date.now();
    const error = expectError(
      await send(app, agency.secret, agency.contactId, { body: 'Anyone there?' }),
      502,
      'MESSAGING_ERROR',
    ) as Record<string, unknown>;
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error.message).toContain('400 ms');
    expect(received).toHaveLength(1);
    const stored = (await storedMessages(agency.orgId, agency.contactId)).find(
      (m) => m.id === error.messageId,
    );
    expect(stored?.status).toBe('FAILED');
  });

  it('answers 502 when the platform answers 200 without a message id', async () => {
    behaviour = { status: 200, body: { messages: [] } };
    expectError(await send(app, agency.secret, agency.contactId, { body: 'Hola' }), 502, 'MESSAGING_ERROR');
  });

  it('never calls the platform for the test organization (sandbox)', async () => {
    const twin = agency.testOrgId;
    const testKey = await createApiKey(app, agency.orgId, { type: 'secret', mode: 'test', ...FAST });
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
    expect(received).toHaveLength(0);
  });
});

function signed(body: unknown, secret = SECRET) {
  const raw = JSON.stringify(body);
  return {
    raw,
    signature: `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`,
  };
}

function hook(numberId: string, raw: string, signature?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== undefined) headers['x-hub-signature-256'] = signature;
  return app.inject({ method: 'POST', url: `/hooks/messaging/${numberId}`, headers, payload: raw });
}

function notification(value: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      { id: 'waba-1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', ...value } }] },
    ],
  };
}

describe('the inbound hook', () => {
  it('accepts a correctly signed message from an unknown number: new contact (MESSAGING), window open, repeat ignored', async () => {
    const fresh = await createMessagingAgency(app);
    const phone = nextPhone();
    const timestamp = String(Math.floor(Date.now() / 1000) - 60);
    const payload = notification({
      contacts: [{ profile: { name: 'Jorge' }, wa_id: phone.slice(1) }],
      messages: [
        { from: phone.slice(1), id: 'wamid.IN1', timestamp, type: 'text', text: { body: 'Hola, ¿precio?' } },
      ],
    });
    const { raw, signature } = signed(payload);
    const answer = expectStatus(await hook(fresh.numberId, raw, signature), 200);
    expect(answer.data).toEqual({ received: 1, statuses: 0, ignored: 0 });

    const list = expectStatus(
      await api(app, 'GET', '/v1/contacts', { key: fresh.secret, query: { q: phone.slice(-6) } }),
      200,
    ).data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ firstName: 'Jorge', phone, source: 'MESSAGING' });
    const conversation = expectStatus(
      await api(app, 'GET', `/v1/conversations/${list[0].id}`, { key: fresh.secret }),
      200,
    ).data;
    expect(conversation).toMatchObject({
      canSendFreeForm: true,
      lastInboundAt: new Date(Number(timestamp) * 1000).toISOString(),
      lastMessage: { chatMessageId: 'wamid.IN1', body: 'Hola, ¿precio?', direction: 'INBOUND' },
    });
    expect((await eventsOf(fresh.orgId, 'message.received'))[0]?.actor).toEqual({
      kind: 'INTEGRATION',
      userId: null,
    });

    // The platform retries: the same message id is not stored twice.
    expect(expectStatus(await hook(fresh.numberId, raw, signature), 200).data).toEqual({
      received: 0,
      statuses: 0,
      ignored: 1,
    });
    expect(await eventsOf(fresh.orgId, 'message.received')).toHaveLength(1);
  });

  it('rejects a missing, malformed or wrong signature with 401 and records nothing', async () => {
    const fresh = await createMessagingAgency(app);
    const payload = notification({
      messages: [{ from: fresh.contactPhone.slice(1), id: 'wamid.BAD', type: 'text', text: { body: 'x' } }],
    });
    const { raw } = signed(payload);
    expectError(await hook(fresh.numberId, raw), 401, 'UNAUTHORIZED');
    expectError(await hook(fresh.numberId, raw, 'sha1=abc'), 401, 'UNAUTHORIZED');
    expectError(
      await hook(fresh.numberId, raw, signed(payload, 'another-secret').signature),
      401,
      'UNAUTHORIZED',
    );
    // Signed, then altered in transit.
    const tampered = raw.replace('"x"', '"y"');
    expectError(await hook(fresh.numberId, tampered, signed(payload).signature), 401, 'UNAUTHORIZED');
    expect(await storedMessages(fresh.orgId, fresh.contactId)).toHaveLength(0);
  });

  it('answers 404 for an unknown number and 400 for signed non-JSON', async () => {
    const { raw, signature } = signed(notification({}));
    expectError(await hook('mnum_0000000000000000000000', raw, signature), 404, 'NOT_FOUND');
    const junk = 'not json';
    const junkSignature = `sha256=${createHmac('sha256', SECRET).update(junk).digest('hex')}`;
    expectError(await hook(agency.numberId, junk, junkSignature), 400, 'VALIDATION_ERROR');
  });

  it('applies delivery receipts in order and ignores one that would go back', async () => {
    behaviour = { status: 200, body: accepted('wamid.RCPT1') };
    const message = expectStatus(
      await send(app, agency.secret, agency.contactId, { body: 'Receipt me' }),
      201,
    ).data;
    const receipt = (status: string, extra: Record<string, unknown> = {}) =>
      signed(notification({ statuses: [{ id: message.chatMessageId, status, timestamp: '1', ...extra }] }));
    for (const [status, expected] of [
      ['delivered', { received: 0, statuses: 1, ignored: 0 }],
      ['read', { received: 0, statuses: 1, ignored: 0 }],
      ['delivered', { received: 0, statuses: 0, ignored: 1 }],
      ['failed', { received: 0, statuses: 0, ignored: 1 }],
    ] as const) {
      const { raw, signature } = receipt(status);
      expect(expectStatus(await hook(agency.numberId, raw, signature), 200).data, status).toEqual(expected);
    }
    const messages = expectStatus(
      await api(app, 'GET', `/v1/conversations/${agency.contactId}/messages`, { key: agency.secret }),
      200,
    ).data;
    expect(messages.find((m: { id: string }) => m.id === message.id)?.status).toBe('READ');
    const changes = (await eventsOf(agency.orgId, 'message.status_changed')).filter(
      (e) => e.data.message.id === message.id,
    );
    expect(changes.map((e) => [e.data.previousStatus, e.data.message.status])).toEqual([
      ['SENT', 'DELIVERED'],
      ['DELIVERED', 'READ'],
    ]);
  });

  it('records a FAILED receipt with the platform reason', async () => {
    behaviour = { status: 200, body: accepted('wamid.FAIL1') };
    const message = expectStatus(
      await send(app, agency.secret, agency.contactId, { body: 'Will fail' }),
      201,
    ).data;
    const { raw, signature } = signed(
      notification({
        statuses: [
          { id: 'wamid.FAIL1', status: 'failed', errors: [{ code: 131026, title: 'Message undeliverable' }] },
        ],
      }),
    );
    expect(expectStatus(await hook(agency.numberId, raw, signature), 200).data.statuses).toBe(1);
    const stored = (await storedMessages(agency.orgId, agency.contactId)).find((m) => m.id === message.id);
    expect(stored).toMatchObject({ status: 'FAILED', failure_reason: 'Message undeliverable (code 131026)' });
  });

  it('opts the contact out on BAJA sent through the platform', async () => {
    const fresh = await createMessagingAgency(app);
    const { raw, signature } = signed(
      notification({
        messages: [
          { from: fresh.contactPhone.slice(1), id: 'wamid.BAJA', type: 'text', text: { body: 'BAJA' } },
        ],
      }),
    );
    expectStatus(await hook(fresh.numberId, raw, signature), 200);
    const contact = expectStatus(
      await api(app, 'GET', `/v1/contacts/${fresh.contactId}`, { key: fresh.secret }),
      200,
    ).data;
    expect(contact.optedOut).toBe(true);
    expect((await eventsOf(fresh.orgId, 'contact.updated')).at(-1)?.data.changes).toEqual(['optedOut']);
  });

  it('records a non-text message as OTHER, which opens the window too', async () => {
    const fresh = await createMessagingAgency(app);
    const { raw, signature } = signed(
      notification({
        messages: [
          { from: fresh.contactPhone.slice(1), id: 'wamid.IMG', type: 'image', image: { id: 'm1' } },
        ],
      }),
    );
    expectStatus(await hook(fresh.numberId, raw, signature), 200);
    const conversation = expectStatus(
      await api(app, 'GET', `/v1/conversations/${fresh.contactId}`, { key: fresh.secret }),
      200,
    ).data;
    expect(conversation).toMatchObject({
      canSendFreeForm: true,
      lastMessage: { type: 'OTHER', body: '[image]' },
    });
  });
});

describe('the inbound hook without MESSAGING_WEBHOOK_SECRET', () => {
  it('is disabled: 503, never open', async () => {
    const plain = await buildTestApp();
    try {
      const fresh = await createMessagingAgency(plain);
      const response = await plain.inject({
        method: 'POST',
        url: `/hooks/messaging/${fresh.numberId}`,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
        payload: '{}',
      });
      expectError(response, 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await plain.close();
    }
  });
});
