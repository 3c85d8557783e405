/**
 * Exactly once under crashes (issue 37, decision 0246; docs/reliability.md "Idempotency under
 * crashes"): clients create contacts, each with its own Idempotency-Key, while the API process is
 * killed with SIGKILL (then started again), or while PostgreSQL stops immediately (a crash: recovery
 * at the next start). Every request that got no answer, or a 503, is retried with its key: each retry
 * is answered within 5 s, and every key has created exactly one contact and one `contact.created` event.
 */
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, FAST } from '../helpers/factories.ts';
import { PrivatePostgres } from '../helpers/private-services.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { ADMIN_TOKEN } from '../helpers/test-app.ts';
import { FAULT_TESTS, FULL, report, serve, sleep, type Served } from './support.ts';

const CLIENTS = 16;
const RETRY_BOUND_MS = 5_000;

interface Attempt {
  key: string;
  name: string;
  /** 0: no answer (the connection broke). */
  status: number;
}

/**
 * Closed-loop clients, each creating contacts with a fresh Idempotency-Key, until `stop()`; a client
 * stops at its first broken connection (its server is gone).
 */
function keyedWrites(baseUrl: string, apiKey: string, prefix: string) {
  const attempts: Attempt[] = [];
  let running = true;
  let sequence = 0;
  const clients = Array.from({ length: CLIENTS }, async () => {
    while (running) {
      const key = `${prefix}-key-${++sequence}`;
      const attempt: Attempt = { key, name: `Crash ${key}`, status: 0 };
      attempts.push(attempt);
      try {
        const response = await fetch(`${baseUrl}/v1/contacts`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ firstName: attempt.name }),
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
        attempt.status = response.status;
        if (response.status === 503) await sleep(50);
      } catch {
        return;
      }
    }
  });
  return {
    attempts,
    async stop() {
      running = false;
      await Promise.all(clients);
    },
  };
}

/**
 * Retries each attempt without a 201 with its key, as a client does: a 503 (a pooled connection the
 * database restart broke, dropped on first use) is tried again after a short pause. Every key must be
 * answered 201 within RETRY_BOUND_MS; returns the slowest key's time and how many 503s were retried.
 */
async function retryUnanswered(baseUrl: string, apiKey: string, attempts: Attempt[]) {
  let slowest = 0;
  let unavailable = 0;
  const retried = attempts.filter((attempt) => attempt.status !== 201);
  await Promise.all(
    retried.map(async (attempt) => {
      const started = performance.now();
      for (;;) {
        const response = await fetch(`${baseUrl}/v1/contacts`, {
          method: 'POST',
          headers: {
            'x-api-key': apiKey,
            'content-type': 'application/json',
            'idempotency-key': attempt.key,
          },
          body: JSON.stringify({ firstName: attempt.name }),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await response.text();
        if (response.status === 503 && performance.now() - started < RETRY_BOUND_MS) {
          unavailable += 1;
          await sleep(100);
          continue;
        }
        slowest = Math.max(slowest, performance.now() - started);
        expect(response.status, `${attempt.key}: ${text}`).toBe(201);
        attempt.status = 201;
        return;
      }
    }),
  );
  return { retried: retried.length, retriedAfter503: unavailable, slowestMs: Math.round(slowest) };
}

/** Per key: how many contacts and `contact.created` events carry its name. */
async function effectsPerKey(databaseUrl: string, prefix: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const contacts = await client.query<{ name: string; count: number }>(
      `SELECT first_name AS name, count(*)::int AS count FROM contacts WHERE first_name LIKE $1 GROUP BY 1`,
      [`Crash ${prefix}%`],
    );
    const events = await client.query<{ name: string; count: number }>(
      `SELECT data->'contact'->>'firstName' AS name, count(*)::int AS count FROM events
       WHERE type = 'contact.created' AND data->'contact'->>'firstName' LIKE $1 GROUP BY 1`,
      [`Crash ${prefix}%`],
    );
    const counts = (rows: { name: string; count: number }[]) =>
      new Map(rows.map((row) => [row.name, row.count]));
    return { contacts: counts(contacts.rows), events: counts(events.rows) };
  } finally {
    await client.end();
  }
}

/** Every attempt's key made exactly one contact and one event: none twice, none lost. */
async function expectExactlyOnce(databaseUrl: string, prefix: string, attempts: Attempt[]) {
  const { contacts, events } = await effectsPerKey(databaseUrl, prefix);
  const twice = attempts.filter((a) => (contacts.get(a.name) ?? 0) > 1 || (events.get(a.name) ?? 0) > 1);
  const lost = attempts.filter((a) => contacts.get(a.name) !== 1 || events.get(a.name) !== 1);
  const shown = (list: Attempt[]) =>
    list.map(
      (a) =>
        `${a.key} (answered ${a.status}): ${contacts.get(a.name) ?? 0} contacts, ${events.get(a.name) ?? 0} events`,
    );
  expect(shown(twice)).toEqual([]);
  expect(shown(lost)).toEqual([]);
  expect(contacts.size).toBe(attempts.length);
  return { executedTwice: twice.length, lost: lost.length };
}

describe.skipIf(!FAULT_TESTS)('Idempotency-Key under crashes (private PostgreSQL)', () => {
  let postgres: PrivatePostgres;

  beforeAll(async () => {
    postgres = await PrivatePostgres.create();
  }, 120_000);
  afterAll(async () => {
    await postgres?.destroy();
  });

  describe('the API process killed (SIGKILL) with requests in flight', () => {
    const children: ChildProcess[] = [];
    let databaseUrl: string;

    const startServer = async () => {
      const env = {
        NODE_ENV: 'test',
        DATABASE_URL: databaseUrl,
        HOST: '127.0.0.1',
        ADMIN_TOKEN,
        RUN_WORKER: 'false',
        SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      };
      const { child, output } = await startServerProcess(env, /listening on http:\/\/\S+\s/, children);
      return { child, baseUrl: /listening on (http:\/\/\S+)/.exec(output())?.[1] as string };
    };

    beforeAll(async () => {
      databaseUrl = await postgres.createDatabase('killed');
    });
    afterAll(async () => {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    });

    it('retries every unanswered request at once, and each key creates exactly one contact', async () => {
      let server = await startServer();
      const call = async (method: string, path: string, body: unknown) => {
        const response = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(response.status, await response.clone().text()).toBeLessThan(300);
        return (await response.json()) as { data: { id: string; key: string } };
      };
      const org = (await call('POST', '/admin/v1/organizations', { name: 'Crash Realty', plan: 'BUSINESS' }))
        .data.id;
      await call('PATCH', `/admin/v1/organizations/${org}`, { writeLimitPerMinute: 100_000 });
      const apiKey = (
        await call('POST', `/admin/v1/organizations/${org}/api-keys`, {
          type: 'secret',
          scopes: ['contacts:read', 'contacts:write'],
          accessLevel: 3,
          rateLimitPerMinute: 100_000,
          writeLimitPerMinute: 100_000,
        })
      ).data.key;

      const rounds = FULL ? 5 : 2;
      const figures = [];
      const all: Attempt[] = [];
      for (let round = 1; round <= rounds; round++) {
        const traffic = keyedWrites(server.baseUrl, apiKey, `kill${round}`);
        await sleep(700 + round * 150);
        const exited = new Promise((resolve) => server.child.once('exit', resolve));
        server.child.kill('SIGKILL');
        await exited;
        await traffic.stop();
        const inFlight = traffic.attempts.filter((a) => a.status === 0).length;
        expect(inFlight).toBeGreaterThan(0);
        server = await startServer();
        const retry = await retryUnanswered(server.baseUrl, apiKey, traffic.attempts);
        expect(retry.slowestMs).toBeLessThan(RETRY_BOUND_MS);
        all.push(...traffic.attempts);
        figures.push({ requests: traffic.attempts.length, inFlight, ...retry });
      }
      const outcome = await expectExactlyOnce(databaseUrl, 'kill', all);
      report('API process killed (SIGKILL) under keyed writes, then retried', {
        rounds: figures,
        ...outcome,
      });
    }, 180_000);
  });

  describe('PostgreSQL stopped immediately (a crash) and started again', () => {
    let service: Served;
    let databaseUrl: string;
    let apiKey: string;

    beforeAll(async () => {
      databaseUrl = await postgres.createDatabase('crashed');
      service = await serve(databaseUrl, { timeouts: { statementMs: 2_000, connectMs: 1_000 } });
      // Neither the key nor the organization throttles the traffic.
      apiKey = (await createTenant(service.app, { org: { writeLimitPerMinute: 100_000 }, secret: FAST }))
        .secret.key;
    }, 120_000);
    afterAll(async () => {
      await service?.close();
    });

    it('retries every request that got no answer or a 503 at once, and each key creates exactly one contact', async () => {
      const traffic = keyedWrites(service.baseUrl, apiKey, 'crash');
      await sleep(1_000);
      await postgres.stop('immediate');
      await sleep(FULL ? 5_000 : 1_000);
      await postgres.start();
      for (let tries = 0; tries < 100; tries++) {
        if ((await fetch(`${service.baseUrl}/readyz`)).status === 200) break;
        await sleep(100);
      }
      await sleep(500);
      await traffic.stop();
      const unanswered = traffic.attempts.filter((a) => a.status !== 201);
      expect(unanswered.length).toBeGreaterThan(0);
      expect(traffic.attempts.filter((a) => ![0, 201, 503].includes(a.status))).toEqual([]);
      const retry = await retryUnanswered(service.baseUrl, apiKey, traffic.attempts);
      expect(retry.slowestMs).toBeLessThan(RETRY_BOUND_MS);
      const outcome = await expectExactlyOnce(databaseUrl, 'crash', traffic.attempts);
      report('PostgreSQL stopped immediately under keyed writes, then retried', {
        requests: traffic.attempts.length,
        ...retry,
        ...outcome,
      });
    }, 120_000);
  });
});
