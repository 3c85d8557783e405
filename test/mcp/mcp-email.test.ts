/**
 * list_emails and the summary's failedEmails through the real MCP endpoint with the SDK's client: the
 * email log as GET /v1/emails reads it (its filters and page), `email:read` per call, one organization
 * only, and the organization's mcpMaskPersonalData on the recipient.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant, type Tenant } from '../helpers/factories.ts';
import { admin, api, expectStatus } from '../helpers/http.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { EMAIL_FROM, seedEmail } from '../features/email/support.ts';
import { callError, callOk, connect, listen } from './support.ts';

interface Page {
  data: Record<string, unknown>[];
  meta: { total: number; page: number; pageSize: number; totalPages: number };
}

let app: FastifyInstance;
let url: URL;
let mine: Tenant;
let theirs: Tenant;
const ids: Record<string, string> = {};
const clients: Client[] = [];

async function open(key = mine.secret.key): Promise<Client> {
  const opened = await connect(url, key);
  clients.push(opened);
  return opened;
}

beforeAll(async () => {
  app = await buildTestApp({ EMAIL_FROM });
  url = await listen(app);
  mine = await createTenant(app);
  theirs = await createTenant(app);
  const contactId = 'ct_0VhJ3kQ2Zt8mX1pR4sT6uC';
  ids.sent = (await seedEmail(mine.org.id, { contactId, toAddress: 'lucia.fernandez@example.com' })).id;
  ids.failed = (
    await seedEmail(mine.org.id, {
      status: 'FAILED',
      reason: 'SMTP 554 mailbox unavailable',
      kind: 'LEAD_ALERT',
      toAddress: 'agent@example.com',
      sentAt: null,
    })
  ).id;
  ids.bounced = (await seedEmail(mine.org.id, { status: 'BOUNCED', reason: 'permanent', contactId })).id;
  ids.skipped = (
    await seedEmail(mine.org.id, {
      status: 'SKIPPED',
      reason: 'CONSENT_REVOKED',
      contactId,
      toAddress: null,
      transport: null,
      sentAt: null,
    })
  ).id;
  ids.theirs = (await seedEmail(theirs.org.id, { status: 'FAILED', reason: 'timeout' })).id;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await app.close();
});

describe('list_emails', () => {
  it('answers what GET /v1/emails answers, with the same filters and page', async () => {
    const client = await open();
    const { data, result } = await callOk<Page>(client, 'list_emails', {});
    const rest = expectStatus(await api(app, 'GET', '/v1/emails', { key: mine.secret.key }), 200);
    expect(data).toEqual(rest);
    expect(data.data.map((e) => e.id)).toEqual([ids.skipped, ids.bounced, ids.failed, ids.sent]);
    expect(data.data[3]).toMatchObject({
      status: 'SENT',
      to: 'lucia.fernandez@example.com',
      messageId: `<${ids.sent}@costa-homes.example>`,
    });
    expect((result.content[0] as { text: string }).text).toBe('4 emails found; page 1 of 1 shows 4.');

    const skipped = await callOk<Page>(client, 'list_emails', {
      contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uC',
      status: 'SKIPPED',
    });
    expect(skipped.data.data).toEqual([
      expect.objectContaining({ id: ids.skipped, reason: 'CONSENT_REVOKED' }),
    ]);
    const alerts = await callOk<Page>(client, 'list_emails', { kind: 'LEAD_ALERT', pageSize: 1 });
    expect(alerts.data.data.map((e) => e.id)).toEqual([ids.failed]);
    const none = await callOk<Page>(client, 'list_emails', { createdAfter: '2999-01-01' });
    expect(none.data.meta.total).toBe(0);
    expect((none.result.content[0] as { text: string }).text).toBe('No emails found.');
  });

  it('refuses bad arguments with a tool error naming the argument', async () => {
    const client = await open();
    expect(await callError(client, 'list_emails', { status: 'LOST' })).toMatch(/status/);
    expect(await callError(client, 'list_emails', { createdAfter: 'yesterday' })).toMatch(/createdAfter/);
    expect(await callError(client, 'list_emails', { pageSize: 101 })).toMatch(/pageSize/);
  });

  it('needs email:read, and shows each organization only its own', async () => {
    const narrow = await open((await createApiKey(app, mine.org.id, { type: 'secret', scopes: [] })).key);
    expect(await callError(narrow, 'list_emails')).toMatch(/email:read/);
    const reader = await open(
      (await createApiKey(app, mine.org.id, { type: 'read_only_secret', scopes: ['email:read'] })).key,
    );
    expect((await callOk<Page>(reader, 'list_emails')).data.meta.total).toBe(4);
    const theirClient = await open(theirs.secret.key);
    const their = await callOk<Page>(theirClient, 'list_emails');
    expect(their.data.data.map((e) => e.id)).toEqual([ids.theirs]);
  });

  it('masks the recipient when the organization masks personal data for MCP', async () => {
    const masking = (on: boolean) =>
      admin(app, 'PATCH', `/admin/v1/organizations/${mine.org.id}`, { mcpMaskPersonalData: on });
    expectStatus(await masking(true), 200);
    try {
      const { data } = await callOk<Page>(await open(), 'list_emails', { status: 'SENT' });
      expect(data.data[0]?.to).toBe('l***@example.com');
    } finally {
      expectStatus(await masking(false), 200);
    }
  });
});

describe('get_summary', () => {
  it('counts the emails that failed or bounced, only for a key with email:read', async () => {
    const { data } = await callOk<{ counts: Record<string, number> }>(await open(), 'get_summary');
    expect(data.counts.failedEmails).toBe(2);
    const their = await callOk<{ counts: Record<string, number> }>(
      await open(theirs.secret.key),
      'get_summary',
    );
    expect(their.data.counts.failedEmails).toBe(1);
    const narrow = await open(
      (await createApiKey(app, mine.org.id, { type: 'secret', scopes: ['tasks:read'] })).key,
    );
    const counts = (await callOk<{ counts: Record<string, number> }>(narrow, 'get_summary')).data.counts;
    expect(counts).not.toHaveProperty('failedEmails');
  });
});
