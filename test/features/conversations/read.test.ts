import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRecentMessages } from '../../../src/features/conversations/conversations.service.ts';
import { operatorCallerOf } from '../../../src/platform/auth/credentials.ts';
import { createTenant, MESSAGING_AGENCY, type MessagingTenant, nextPhone } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { inbound, send } from './support.ts';

const HOUR = 60 * 60 * 1000;
let now = new Date();
let app: FastifyInstance;
let agency: MessagingTenant;
let other: MessagingTenant;

beforeAll(async () => {
  app = await buildTestApp({}, { clock: () => now });
  agency = await createTenant(app, MESSAGING_AGENCY);
  other = await createTenant(app, MESSAGING_AGENCY);
});
afterAll(async () => {
  await app.close();
});

describe('GET /v1/conversations and GET /v1/conversations/{contactId}/messages', () => {
  let open: string;
  let closed: string;
  let optedOut: string;

  beforeAll(async () => {
    const contact = async (firstName: string) =>
      expectStatus(
        await admin(app, 'POST', `/admin/v1/organizations/${agency.org.id}/contacts`, {
          firstName,
          phone: nextPhone(),
        }),
        201,
      ).data.id as string;
    const t0 = new Date(Date.now() - 30 * HOUR);
    closed = await contact('Closed');
    now = t0;
    expectStatus(await inbound(app, agency.org.id, closed, 'Old question'), 201);
    optedOut = await contact('Gone');
    now = new Date(t0.getTime() + HOUR);
    expectStatus(await inbound(app, agency.org.id, optedOut, 'STOP'), 201);
    open = await contact('Open');
    now = new Date();
    for (let i = 1; i <= 3; i++) {
      now = new Date(now.getTime() + 1000);
      expectStatus(await inbound(app, agency.org.id, open, `Question ${i}`), 201);
      now = new Date(now.getTime() + 1000);
      expectStatus(await send(app, agency.secret.key, open, { body: `Answer ${i}` }), 201);
    }
  });

  it('lists conversations, most recent first, with mode, window, canSendFreeForm and the last message', async () => {
    const body = expectStatus(await api(app, 'GET', '/v1/conversations', { key: agency.readOnly.key }), 200);
    expect(body.meta).toEqual({ total: 3, page: 1, pageSize: 20, totalPages: 1 });
    const [first, second, third] = body.data;
    expect(first).toMatchObject({
      contactId: open,
      contact: { id: open, fullName: 'Open', optedOut: false },
      mode: 'AUTOMATED',
      blocked: false,
      messagingMode: 'FREE_FORM',
      canSendFreeForm: true,
      lastMessage: { direction: 'OUTBOUND', body: 'Answer 3', status: 'DELIVERED' },
    });
    expect(first.windowExpiresAt).toBe(
      new Date(new Date(first.lastInboundAt).getTime() + 24 * HOUR).toISOString(),
    );
    expect(second).toMatchObject({
      contactId: optedOut,
      messagingMode: 'BLOCKED',
      canSendFreeForm: false,
      contact: { optedOut: true },
      lastMessage: { body: 'STOP' },
    });
    expect(third).toMatchObject({
      contactId: closed,
      messagingMode: 'TEMPLATE_ONLY',
      canSendFreeForm: false,
      lastMessage: { direction: 'INBOUND', body: 'Old question' },
    });
    const page2 = expectStatus(
      await api(app, 'GET', '/v1/conversations', {
        key: agency.secret.key,
        query: { page: '2', pageSize: '2' },
      }),
      200,
    );
    expect(page2.data.map((c: { contactId: string }) => c.contactId)).toEqual([closed]);
    expect(page2.meta).toEqual({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
  });

  it("pages a contact's messages newest first", async () => {
    const page1 = expectStatus(
      await api(app, 'GET', `/v1/conversations/${open}/messages`, {
        key: agency.secret.key,
        query: { pageSize: '4' },
      }),
      200,
    );
    expect(page1.meta).toEqual({ total: 6, page: 1, pageSize: 4, totalPages: 2 });
    expect(page1.data.map((m: { body: string }) => m.body)).toEqual([
      'Answer 3',
      'Question 3',
      'Answer 2',
      'Question 2',
    ]);
    const page2 = expectStatus(
      await api(app, 'GET', `/v1/conversations/${open}/messages`, {
        key: agency.secret.key,
        query: { pageSize: '4', page: '2' },
      }),
      200,
    );
    expect(page2.data.map((m: { body: string }) => m.body)).toEqual(['Answer 1', 'Question 1']);
    expectError(
      await api(app, 'GET', `/v1/conversations/${open}/messages`, {
        key: agency.secret.key,
        query: { pageSize: '101' },
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('describes a contact who never wrote (no conversation yet) without inventing one', async () => {
    const conversation = expectStatus(
      await api(app, 'GET', `/v1/conversations/${agency.messaging.contactId}`, { key: agency.secret.key }),
      200,
    ).data;
    expect(conversation).toMatchObject({
      id: null,
      mode: 'AUTOMATED',
      messagingMode: 'TEMPLATE_ONLY',
      canSendFreeForm: false,
      windowExpiresAt: null,
      lastInboundAt: null,
      lastMessage: null,
    });
    const messages = expectStatus(
      await api(app, 'GET', `/v1/conversations/${agency.messaging.contactId}/messages`, {
        key: agency.secret.key,
      }),
      200,
    );
    expect(messages).toEqual({ data: [], meta: { total: 0, page: 1, pageSize: 20, totalPages: 0 } });
  });

  it("never shows another organization's conversations or messages", async () => {
    const theirs = expectStatus(await api(app, 'GET', '/v1/conversations', { key: other.secret.key }), 200);
    expect(theirs).toEqual({ data: [], meta: { total: 0, page: 1, pageSize: 20, totalPages: 0 } });
    expectError(
      await api(app, 'GET', `/v1/conversations/${open}/messages`, { key: other.secret.key }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await api(app, 'GET', `/v1/conversations/${open}`, { key: other.secret.key }),
      404,
      'NOT_FOUND',
    );
    expectError(await send(app, other.secret.key, open, { body: 'Hi' }), 404, 'NOT_FOUND');
    expectError(await inbound(app, other.org.id, open, 'Hi'), 404, 'NOT_FOUND');
    expectError(
      await admin(app, 'PATCH', `/admin/v1/organizations/${other.org.id}/conversations/${open}`, {
        mode: 'HUMAN',
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('needs conversations:read; a publishable key gets 403', async () => {
    expectError(
      await api(app, 'GET', '/v1/conversations', { key: agency.publishable.key }),
      403,
      'FORBIDDEN',
    );
  });

  it("gives the MCP tools a contact's recent messages (listRecentMessages)", async () => {
    const db = await testDatabase();
    const recent = await listRecentMessages(db, await operatorCallerOf(db, agency.org.id), open, 2);
    expect(recent.map((m) => m.body)).toEqual(['Answer 3', 'Question 3']);
    const theirs = await operatorCallerOf(db, other.org.id);
    await expect(listRecentMessages(db, theirs, open, 5)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
