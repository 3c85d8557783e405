/**
 * The messaging platform's signed inbound hook, POST /hooks/messaging/{numberId}: inbound messages
 * and delivery receipts. The app sends through the `http` provider to a fake platform, as the sandbox
 * would simulate the receipts itself.
 */
import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTenant, MESSAGING_AGENCY, type MessagingTenant, nextPhone } from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import {
  accepted,
  eventsOf,
  inbound,
  send,
  startFakePlatform,
  storedMessages,
  type FakePlatform,
} from '../conversations/support.ts';

const SECRET = 'hook-secret-for-tests-0123456789';
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
    MESSAGING_WEBHOOK_SECRET: SECRET,
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
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    const phone = nextPhone();
    const timestamp = String(Math.floor(Date.now() / 1000) - 60);
    const payload = notification({
      contacts: [{ profile: { name: 'Jorge' }, wa_id: phone.slice(1) }],
      messages: [
        { from: phone.slice(1), id: 'wamid.IN1', timestamp, type: 'text', text: { body: 'Hola, ¿precio?' } },
      ],
    });
    const { raw, signature } = signed(payload);
    const answer = expectStatus(await hook(fresh.messaging.numberId, raw, signature), 200);
    expect(answer.data).toEqual({ received: 1, statuses: 0, ignored: 0 });

    const list = expectStatus(
      await api(app, 'GET', '/v1/contacts', { key: fresh.secret.key, query: { q: phone.slice(-6) } }),
      200,
    ).data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ firstName: 'Jorge', phone, source: 'MESSAGING' });
    const conversation = expectStatus(
      await api(app, 'GET', `/v1/conversations/${list[0].id}`, { key: fresh.secret.key }),
      200,
    ).data;
    expect(conversation).toMatchObject({
      canSendFreeForm: true,
      lastInboundAt: new Date(Number(timestamp) * 1000).toISOString(),
      lastMessage: { chatMessageId: 'wamid.IN1', body: 'Hola, ¿precio?', direction: 'INBOUND' },
    });
    expect((await eventsOf(fresh.org.id, 'message.received'))[0]?.actor).toEqual({
      kind: 'INTEGRATION',
      userId: null,
    });

    // The platform retries: the same message id is not stored twice.
    expect(expectStatus(await hook(fresh.messaging.numberId, raw, signature), 200).data).toEqual({
      received: 0,
      statuses: 0,
      ignored: 1,
    });
    expect(await eventsOf(fresh.org.id, 'message.received')).toHaveLength(1);
  });

  it('rejects a missing, malformed or wrong signature with 401 and records nothing', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    const payload = notification({
      messages: [
        { from: fresh.messaging.contactPhone.slice(1), id: 'wamid.BAD', type: 'text', text: { body: 'x' } },
      ],
    });
    const { raw } = signed(payload);
    expectError(await hook(fresh.messaging.numberId, raw), 401, 'UNAUTHORIZED');
    expectError(await hook(fresh.messaging.numberId, raw, 'sha1=abc'), 401, 'UNAUTHORIZED');
    expectError(
      await hook(fresh.messaging.numberId, raw, signed(payload, 'another-secret').signature),
      401,
      'UNAUTHORIZED',
    );
    // Signed, then altered in transit.
    const tampered = raw.replace('"x"', '"y"');
    expectError(
      await hook(fresh.messaging.numberId, tampered, signed(payload).signature),
      401,
      'UNAUTHORIZED',
    );
    expect(await storedMessages(fresh.org.id, fresh.messaging.contactId)).toHaveLength(0);
  });

  it('answers 404 for an unknown number and 400 for signed non-JSON', async () => {
    const { raw, signature } = signed(notification({}));
    expectError(await hook('mnum_0000000000000000000000', raw, signature), 404, 'NOT_FOUND');
    const junk = 'not json';
    const junkSignature = `sha256=${createHmac('sha256', SECRET).update(junk).digest('hex')}`;
    expectError(await hook(agency.messaging.numberId, junk, junkSignature), 400, 'VALIDATION_ERROR');
  });

  it('applies delivery receipts in order and ignores one that would go back', async () => {
    platform.behaviour = { status: 200, body: accepted('wamid.RCPT1') };
    const message = expectStatus(
      await send(app, agency.secret.key, agency.messaging.contactId, { body: 'Receipt me' }),
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
      expect(expectStatus(await hook(agency.messaging.numberId, raw, signature), 200).data, status).toEqual(
        expected,
      );
    }
    const messages = expectStatus(
      await api(app, 'GET', `/v1/conversations/${agency.messaging.contactId}/messages`, {
        key: agency.secret.key,
      }),
      200,
    ).data;
    expect(messages.find((m: { id: string }) => m.id === message.id)?.status).toBe('READ');
    const changes = (await eventsOf(agency.org.id, 'message.status_changed')).filter(
      (e) => e.data.message.id === message.id,
    );
    expect(changes.map((e) => [e.data.previousStatus, e.data.message.status])).toEqual([
      ['SENT', 'DELIVERED'],
      ['DELIVERED', 'READ'],
    ]);
  });

  it('records a FAILED receipt with the platform reason', async () => {
    platform.behaviour = { status: 200, body: accepted('wamid.FAIL1') };
    const message = expectStatus(
      await send(app, agency.secret.key, agency.messaging.contactId, { body: 'Will fail' }),
      201,
    ).data;
    const { raw, signature } = signed(
      notification({
        statuses: [
          { id: 'wamid.FAIL1', status: 'failed', errors: [{ code: 131026, title: 'Message undeliverable' }] },
        ],
      }),
    );
    expect(expectStatus(await hook(agency.messaging.numberId, raw, signature), 200).data.statuses).toBe(1);
    const stored = (await storedMessages(agency.org.id, agency.messaging.contactId)).find(
      (m) => m.id === message.id,
    );
    expect(stored).toMatchObject({ status: 'FAILED', failure_reason: 'Message undeliverable (code 131026)' });
  });

  it('opts the contact out on BAJA sent through the platform', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    const { raw, signature } = signed(
      notification({
        messages: [
          {
            from: fresh.messaging.contactPhone.slice(1),
            id: 'wamid.BAJA',
            type: 'text',
            text: { body: 'BAJA' },
          },
        ],
      }),
    );
    expectStatus(await hook(fresh.messaging.numberId, raw, signature), 200);
    const contact = expectStatus(
      await api(app, 'GET', `/v1/contacts/${fresh.messaging.contactId}`, { key: fresh.secret.key }),
      200,
    ).data;
    expect(contact.optedOut).toBe(true);
    expect((await eventsOf(fresh.org.id, 'contact.updated')).at(-1)?.data.changes).toEqual(['optedOut']);
  });

  it('records a non-text message as OTHER, which opens the window too', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    const { raw, signature } = signed(
      notification({
        messages: [
          {
            from: fresh.messaging.contactPhone.slice(1),
            id: 'wamid.IMG',
            type: 'image',
            image: { id: 'm1' },
          },
        ],
      }),
    );
    expectStatus(await hook(fresh.messaging.numberId, raw, signature), 200);
    const conversation = expectStatus(
      await api(app, 'GET', `/v1/conversations/${fresh.messaging.contactId}`, { key: fresh.secret.key }),
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
      const fresh = await createTenant(plain, MESSAGING_AGENCY);
      const response = await plain.inject({
        method: 'POST',
        url: `/hooks/messaging/${fresh.messaging.numberId}`,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
        payload: '{}',
      });
      expectError(response, 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await plain.close();
    }
  });
});
