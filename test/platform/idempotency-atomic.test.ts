/**
 * An Idempotency-Key's record commits with the request's effects (issue 37, decision 0246): a request
 * whose transaction fails at its very end has done nothing and says so, and its retry runs at once; a
 * request's several transactions commit as one; a send past its recovery point is resumed by a retry
 * with the same key, the platform given the same idempotency key twice and the message recorded once.
 * The process and PostgreSQL crashes themselves: test/reliability/idempotency-faults.test.ts.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, MESSAGING_AGENCY, type MessagingTenant, type Tenant } from '../helpers/factories.ts';
import { api, expectError, expectStatus } from '../helpers/http.ts';
import { buildProbeApp } from '../helpers/probe-app.ts';
import { idempotencyRecord, notesWithText as probeNotes, probeBackends } from '../helpers/probe.ts';
import { buildTestApp, TEST_DATABASE_URL, testDatabase } from '../helpers/test-app.ts';
import { eventsOf, inbound, send, storedMessages } from '../features/conversations/support.ts';

let counter = 0;
const freshKey = () => `atomic-${Date.now()}-${++counter}`;

const notesWithText = async (organizationId: string, text: string) =>
  probeNotes(await testDatabase(), organizationId, text);
const record = async (organizationId: string, key: string) =>
  idempotencyRecord(await testDatabase(), organizationId, key);

describe('a request and its idempotency record commit together', () => {
  let app: FastifyInstance;
  let tenant: Tenant;

  beforeAll(async () => {
    app = await buildProbeApp();
    tenant = await createTenant(app, { secret: { rateLimitPerMinute: 10_000, writeLimitPerMinute: 10_000 } });
  });
  afterAll(async () => {
    await app.close();
  });

  const note = (key: string, body: Record<string, unknown>) =>
    api(app, 'POST', '/v1/probe/notes', {
      key: tenant.secret.key,
      body,
      headers: { 'idempotency-key': key },
    });

  it('stores the answer in the transaction of the effects: one record, completed, no lease', async () => {
    const key = freshKey();
    const answer = expectStatus(await note(key, { text: `together-${key}` }), 201);
    const row = await record(tenant.org.id, key);
    expect(row).toMatchObject({
      status: 'completed',
      responseStatus: 201,
      lockedUntil: null,
      recoveryPoint: null,
    });
    expect(answer.data.text).toBe(`together-${key}`);
  });

  it('rolls the effects back with the answer when the request fails after writing, and stores nothing', async () => {
    const key = freshKey();
    const text = `rolled-back-${key}`;
    expectError(await note(key, { text, fail: 'after-write' }), 500, 'INTERNAL_ERROR');
    expect(await notesWithText(tenant.org.id, text)).toBe(0);
    expect(await record(tenant.org.id, key)).toBeUndefined();
    expectStatus(await note(key, { text }), 201);
    expect(await notesWithText(tenant.org.id, text)).toBe(1);
  });

  it("commits a request's transactions as one: a failure in the last rolls back the first", async () => {
    const key = freshKey();
    const text = `two-transactions-${key}`;
    expectError(await note(key, { text, transactions: 2, fail: 'after-write' }), 500, 'INTERNAL_ERROR');
    expect(await notesWithText(tenant.org.id, text)).toBe(0);
    expectStatus(await note(key, { text, transactions: 2 }), 201);
    expect(await notesWithText(tenant.org.id, text)).toBe(2);
    // Without a key each transaction commits on its own, as before (the first stays).
    const alone = `without-key-${key}`;
    const response = await api(app, 'POST', '/v1/probe/notes', {
      key: tenant.secret.key,
      body: { text: alone, transactions: 2, fail: 'after-write' },
    });
    expectError(response, 500, 'INTERNAL_ERROR');
    expect(await notesWithText(tenant.org.id, alone)).toBe(1);
  });

  it.skipIf(TEST_DATABASE_URL === undefined)(
    'answers 503 and keeps nothing when the connection dies before the commit; the retry runs at once (PostgreSQL)',
    async () => {
      const key = freshKey();
      const text = `lost-commit-${key}`;
      // The request's transaction stays open for the 1.5 s after its write (pauseMs): end its server
      // process (the probe notes it), from a connection of the database's owner.
      const owner = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await owner.connect();
      const pending = note(key, { text, pauseMs: 1_500 });
      let killed = 0;
      try {
        for (let tries = 0; tries < 200 && killed === 0; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          const pid = probeBackends.get(text);
          if (pid === undefined) continue;
          const { rows } = await owner.query<{ ended: boolean }>(
            `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
             WHERE pid = $1 AND state = 'idle in transaction'`,
            [pid],
          );
          killed = rows.filter((row) => row.ended).length;
        }
      } finally {
        await owner.end();
      }
      expect(killed).toBe(1);
      const response = await pending;
      expectError(response, 503, 'SERVICE_UNAVAILABLE');
      expect(await notesWithText(tenant.org.id, text)).toBe(0);
      expect(await record(tenant.org.id, key)).toBeUndefined();

      const started = Date.now();
      const retry = await note(key, { text, pauseMs: 600 });
      expectStatus(retry, 201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await notesWithText(tenant.org.id, text)).toBe(1);
    },
  );
});

describe('a send resumed from its recovery point (the platform called again with the same key)', () => {
  let platform: Server;
  let app: FastifyInstance;
  let agency: MessagingTenant;
  const calls: { idempotencyKey: string | undefined; response: ServerResponse }[] = [];
  let hold = true;

  beforeAll(async () => {
    platform = createServer((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      request.on('end', () => {
        const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
        calls.push({ idempotencyKey, response });
        // The first call hangs until the test lets it answer; the platform de-duplicates on the key.
        if (hold && calls.length === 1) return;
        answer(response);
      });
    });
    await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
    app = await buildTestApp(
      {
        MESSAGING_PROVIDER: 'http',
        MESSAGING_API_URL: `http://127.0.0.1:${(platform.address() as AddressInfo).port}/v21.0`,
        MESSAGING_API_TOKEN: 'platform-token',
        MESSAGING_TIMEOUT_MS: '5000',
      },
      { idempotencyWaitMs: 300 },
    );
    agency = await createTenant(app, MESSAGING_AGENCY);
    expectStatus(await inbound(app, agency.org.id, agency.messaging.contactId, 'Hola'), 201);
  });
  afterAll(async () => {
    await app.close();
    platform.closeAllConnections();
    await new Promise<void>((resolve) => platform.close(() => resolve()));
  });

  function answer(response: ServerResponse) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: 'wamid.resumed-once' }] }));
  }

  it('resumes a send whose first attempt is past its recovery point, and records the message once', async () => {
    const key = freshKey();
    const body = { body: 'Mañana a las 10, ¿le va bien?' };
    const before = (await storedMessages(agency.org.id, agency.messaging.contactId)).length;
    const first = send(app, agency.secret.key, agency.messaging.contactId, body, { 'idempotency-key': key });
    while (calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));

    // The first is past its checkpoint (QUEUED committed) and waits on the platform: the retry waits
    // 300 ms for it, then resumes from the recovery point instead of storing a second message.
    const row = await record(agency.org.id, key);
    expect(row).toMatchObject({ status: 'in_progress', recoveryPoint: 'message_queued' });
    const retry = await send(app, agency.secret.key, agency.messaging.contactId, body, {
      'idempotency-key': key,
    });
    const sent = expectStatus(retry, 201).data;
    expect(sent).toMatchObject({ status: 'SENT', direction: 'OUTBOUND' });
    expect(sent.id).toBe((row?.recoveryData as { messageId: string }).messageId);

    // The first attempt's platform call answers now: it finds the record completed by the retry and
    // answers as the retry did.
    hold = false;
    answer(calls[0]?.response as ServerResponse);
    const original = await first;
    expect(expectStatus(original, 201).data).toEqual(sent);
    expect(original.headers['idempotent-replayed']).toBe('true');

    expect(calls.map((call) => call.idempotencyKey)).toEqual([
      `${agency.org.id}:${key}`,
      `${agency.org.id}:${key}`,
    ]);
    const messages = await storedMessages(agency.org.id, agency.messaging.contactId);
    expect(messages.length).toBe(before + 1);
    const sentEvents = (await eventsOf(agency.org.id, 'message.sent')).filter(
      (e) => e.data.message.id === sent.id,
    );
    expect(sentEvents.length).toBe(1);
    expect(await record(agency.org.id, key)).toMatchObject({ status: 'completed', recoveryPoint: null });
  });
});

describe('docs/reliability.md', () => {
  it('states the idempotency guarantee of every POST route, and of no other', async () => {
    const app = await buildTestApp();
    try {
      const routes = app.routeTable
        .filter((route) => route.method === 'POST')
        .map((route) => `POST ${route.url.replace(/:(\w+)/g, '{$1}')}`);
      const documented = [
        ...readFileSync('docs/reliability.md', 'utf8').matchAll(/^\| `(POST \S+)`\s*\| ([^|]+?)\s*\|$/gm),
      ];
      const classes = new Set(documented.map((row) => (row[2] as string).trim()));
      expect([...classes].sort()).toEqual(
        ['buffered', 'files, then one transaction', 'not keyed', 'one transaction', 'recovery point'].sort(),
      );
      expect(documented.map((row) => row[1]).sort()).toEqual([...new Set(routes)].sort());
    } finally {
      await app.close();
    }
  });
});
