/**
 * What one POST /v1/finder costs the database (issue 24 item 4, decision 0226): one tenant
 * transaction holding ONE statement, so at most three round trips on PostgreSQL (BEGIN and the
 * prelude, the statement, COMMIT; the first two in one once the statement is prepared). Counted two ways, both of which fail when a query is added:
 * - on both drivers, the transactions the request opens and the statements sent inside each
 *   (every Drizzle statement goes through its session's `prepareQuery`);
 * - on PostgreSQL, the round trips themselves: every `query` call a pooled connection makes on
 *   behalf of the request (the request runs in an AsyncLocalStorage context; background timers
 *   such as the delivery worker's do not).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, TransactionOptions, Tx } from '../../../src/db/database.ts';
import { admin, api, expectStatus } from '../../helpers/http.ts';
import { createProperty, createTenant, type Tenant, busyPublishableKey } from '../../helpers/factories.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

interface Transaction {
  kind: string;
  statements: string[];
}

interface Trace {
  transactions: Transaction[];
  /** Texts of the `query` calls of PostgreSQL connections (one per round trip). */
  roundTrips: string[];
}

const tracing = new AsyncLocalStorage<Trace>();

type Query = (this: pg.Client, ...args: unknown[]) => unknown;
const clientPrototype = pg.Client.prototype as unknown as { query: Query };
const originalQuery = clientPrototype.query;

function textOf(config: unknown): string {
  if (typeof config === 'string') return config;
  return String((config as { text?: unknown } | null)?.text ?? config);
}

interface SessionInternals {
  prepareQuery(query: { sql: string }, ...rest: unknown[]): unknown;
}

/** `tx` with every statement it prepares (so every statement it sends) written down in `into`. */
function countingTx(tx: Tx, into: Transaction): Tx {
  const session = (tx as unknown as { session: SessionInternals }).session;
  const counted = Object.create(session, {
    prepareQuery: {
      value(this: SessionInternals, query: { sql: string }, ...rest: unknown[]) {
        into.statements.push(query.sql);
        return session.prepareQuery.call(this, query, ...rest);
      },
    },
  }) as SessionInternals;
  return Object.create(tx, { session: { value: counted } }) as Tx;
}

/** What a Database offers besides sending statements: not counted. */
const NOT_QUERIES = new Set(['kind', 'poolStats', 'replicaStatus', 'migrate', 'dumpSnapshot', 'close']);

/**
 * The database with the transactions (and their statements) of a traced request written down. Any
 * other way in (a single-statement read, a ping) counts as a transaction of its own name.
 */
function countingDatabase(db: Database): Database {
  const opened = <T>(kind: string, fn: (tx: Tx) => Promise<T>) => {
    const trace = tracing.getStore();
    if (trace === undefined) return fn;
    const transaction: Transaction = { kind, statements: [] };
    trace.transactions.push(transaction);
    return (tx: Tx) => fn(countingTx(tx, transaction));
  };
  const others = Object.fromEntries(
    Object.entries(db)
      .filter(([name, value]) => typeof value === 'function' && !NOT_QUERIES.has(name))
      .map(([name, value]) => [
        name,
        (...args: unknown[]) => {
          tracing.getStore()?.transactions.push({ kind: name, statements: ['(not counted)'] });
          return (value as (...args: unknown[]) => unknown)(...args);
        },
      ]),
  );
  return {
    ...db,
    ...others,
    tenantTx: (organizationId, fn) => db.tenantTx(organizationId, opened('tenant', fn)),
    readTx: (organizationId, fn) => db.readTx(organizationId, opened('read', fn)),
    systemTx: (fn) => db.systemTx(opened('system', fn)),
    transaction: (options: TransactionOptions, fn) => db.transaction(options, opened(options.role, fn)),
  };
}

let app: FastifyInstance;
let db: Database;
let tenant: Tenant;
let key: string;
let phoneSequence = 0;

const nextPhone = () =>
  `+3462${String(Date.now() % 10_000).padStart(4, '0')}${String(++phoneSequence).padStart(3, '0')}`;

/** Sends a finder request and returns what it cost the database. */
async function traced(body: Record<string, unknown>): Promise<Trace> {
  const trace: Trace = { transactions: [], roundTrips: [] };
  // Awaited inside the context: inject dispatches the request when it is awaited.
  const response = await tracing.run(trace, async () => await api(app, 'POST', '/v1/finder', { key, body }));
  expectStatus(response, 201);
  return trace;
}

function expectOneStatement(trace: Trace) {
  const summary = JSON.stringify(trace, null, 1);
  expect(
    trace.transactions.map((t) => t.kind),
    summary,
  ).toEqual(['tenant']);
  expect(trace.transactions[0]?.statements, summary).toHaveLength(1);
  if (db.kind === 'postgres') {
    // BEGIN + time limits + tenant + role in one string, the finder's statement, COMMIT: the first
    // two in one message once the statement is prepared on the connection (decision 0228).
    const merged = trace.roundTrips.length === 2;
    expect(trace.roundTrips, summary).toHaveLength(merged ? 2 : 3);
    expect(trace.roundTrips[0], summary).toMatch(merged ? /^BEGIN; [^]*; EXECUTE "s_/ : /^BEGIN; /);
    expect(trace.roundTrips.at(-1), summary).toBe('COMMIT');
  }
}

beforeAll(async () => {
  db = await testDatabase();
  clientPrototype.query = function (this: pg.Client, ...args: unknown[]) {
    tracing.getStore()?.roundTrips.push(textOf(args[0]));
    return originalQuery.apply(this, args);
  };
  // Private URLs admitted: the subscription below is never delivered to (no worker runs here).
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { db: countingDatabase(db) });
  tenant = await createTenant(app);
  key = await busyPublishableKey(app, tenant.org.id);
  for (const price of [240000, 260000, 900000]) await createProperty(app, tenant.org.id, { price });
  // A subscription, so the events fan out to a webhook delivery inside the statement too.
  expectStatus(
    await api(app, 'POST', '/v1/webhooks', {
      key: tenant.secret.key,
      body: { url: 'http://127.0.0.1:9/finder-hooks', eventTypes: ['*'] },
    }),
    201,
  );
  // The first request verifies the key (a system transaction, then cached): not the finder's cost.
  await traced({ city: 'Málaga', firstName: 'Warm', phone: nextPhone() });
}, 120_000);

afterAll(async () => {
  clientPrototype.query = originalQuery;
  await app?.close();
});

describe('POST /v1/finder: what it costs the database', () => {
  it('a new person: one transaction, one statement (3 round trips on PostgreSQL)', async () => {
    const trace = await traced({
      city: 'Málaga',
      budgetMax: 300000,
      amenities: ['pool'],
      firstName: 'Nueva',
      phone: nextPhone(),
      email: `nueva-${Date.now()}@example.com`,
      consents: { messaging: false, email: true, phone: true },
    });
    expectOneStatement(trace);
  });

  it('a returning person who adds an email and changes consent: still one statement', async () => {
    const phone = nextPhone();
    await traced({ city: 'Málaga', firstName: 'Vuelve', phone, consents: { messaging: true } });
    const trace = await traced({
      transactionType: 'SALE',
      propertyType: 'APARTMENT',
      neighborhood: 'Centro',
      minBedrooms: 1,
      budgetMin: 100000,
      budgetMax: 280000,
      firstName: 'Vuelve',
      phone,
      email: `vuelve-${Date.now()}@example.com`,
      subscribedToAlerts: true,
      consents: { messaging: false, phone: false },
    });
    expectOneStatement(trace);
  });

  it('a known contact found by email, who gains a phone: still one statement', async () => {
    const email = `conocida-${Date.now()}@example.com`;
    expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${tenant.org.id}/contacts`, {
        firstName: 'Conocida',
        lastName: 'Pérez',
        email,
        tags: ['vip'],
      }),
      201,
    );
    expectOneStatement(await traced({ city: 'Madrid', firstName: 'Conocida', phone: nextPhone(), email }));
  });
});
