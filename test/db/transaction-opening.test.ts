/**
 * A transaction's opening (BEGIN, time limits, tenant, role) rides with its first statement on
 * PostgreSQL once that statement is prepared on the connection: `BEGIN; ...; EXECUTE s_...(literals)`
 * in one message (src/db/pg-statements.ts, decision 0228). Counted at the driver: every `query` call of
 * a pg connection is one round trip. The values must arrive exactly as bound parameters would, the
 * tenant and role must hold for the statement, and failures must leave nothing behind.
 */
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, queryRows, type Database } from '../../src/db/database.ts';
import { databaseError } from '../../src/db/errors.ts';
import { TEST_DATABASE_URL } from '../helpers/test-app.ts';

type Query = (this: pg.Client, ...args: unknown[]) => unknown;
const clientPrototype = pg.Client.prototype as unknown as { query: Query };
const originalQuery = clientPrototype.query;
let roundTrips: string[] = [];

const ORG = 'org_0penIngTest00000000001';
const onPostgres = TEST_DATABASE_URL !== undefined && process.env.TEST_VIA_PGBOUNCER !== '1';

/** Values of every kind a statement binds, with the text PostgreSQL must see for each. */
const VALUES = {
  quote: "O'Brien; DROP TABLE contacts; --",
  backslash: 'C:\\temp\\new',
  unicode: 'Málaga ☀ 日本',
  empty: '',
  array: ['a,b', 'c"d', "e'f", 'g\\h', ''],
  number: 1234.5,
  flag: true,
  json: { nested: { quote: "it's", list: [1, null] } },
};

function echo() {
  return sql`SELECT ${VALUES.quote}::text AS quote, ${VALUES.backslash}::text AS backslash,
    ${VALUES.unicode}::text AS unicode, ${VALUES.empty}::text AS empty,
    ${sql.param(VALUES.array)}::text[] AS array, ${VALUES.number}::numeric AS number,
    ${VALUES.flag}::boolean AS flag, ${JSON.stringify(VALUES.json)}::jsonb AS json,
    ${null}::text AS nothing,
    current_setting('app.organization_id', true) AS tenant, current_user AS role,
    current_setting('transaction_read_only') AS read_only`;
}

const expected = {
  ...VALUES,
  number: '1234.5',
  nothing: null,
  tenant: ORG,
  role: 'agency_app',
  read_only: 'on',
};

async function counted<T>(run: () => Promise<T>): Promise<{ result: T; trips: string[] }> {
  roundTrips = [];
  const result = await run();
  return { result, trips: roundTrips };
}

describe.skipIf(!onPostgres)('a transaction opening with its first statement (PostgreSQL)', () => {
  let db: Database;
  let unprepared: Database;

  beforeAll(async () => {
    // One connection each: the second transaction surely finds the first's statement prepared.
    db = await openDatabase({ databaseUrl: TEST_DATABASE_URL, dataDir: 'memory://', poolSize: 1 });
    unprepared = await openDatabase({
      databaseUrl: TEST_DATABASE_URL,
      dataDir: 'memory://',
      poolSize: 1,
      preparedStatements: false,
    });
    clientPrototype.query = function (this: pg.Client, ...args: unknown[]) {
      const config = args[0];
      roundTrips.push(typeof config === 'string' ? config : String((config as { text?: unknown }).text));
      return originalQuery.apply(this, args);
    };
  });

  afterAll(async () => {
    clientPrototype.query = originalQuery;
    await db?.close();
    await unprepared?.close();
  });

  it('sends the opening alone the first time, then with the prepared statement: 3 round trips, then 2', async () => {
    const first = await counted(() => db.readTx(ORG, (tx) => queryRows(tx, echo())));
    expect(first.trips).toHaveLength(3);
    expect(first.trips[0]).toMatch(/^BEGIN; SET TRANSACTION READ ONLY; /);
    expect(first.trips[2]).toBe('COMMIT');

    const second = await counted(() => db.readTx(ORG, (tx) => queryRows(tx, echo())));
    expect(second.trips).toHaveLength(2);
    expect(second.trips[0]).toMatch(/^BEGIN; SET TRANSACTION READ ONLY; .*; EXECUTE "s_[\w-]+"\('O''Brien; DROP/);
    expect(second.trips[1]).toBe('COMMIT');
    // The same answer both ways, every value as it was bound, the tenant and role in force.
    expect(second.result).toEqual(first.result);
    expect(second.result).toEqual([expected]);
  });

  it('writes in the same way: the tenant transaction, its insert and its read-back', async () => {
    const table = `opening_${Date.now()}`;
    // A temporary table: this connection's own (the pool has one), gone with it.
    await db.systemTx((tx) => tx.execute(sql.raw(`CREATE TEMP TABLE ${table} (id int PRIMARY KEY, note text)`)));
    const insert = (id: number, note: string) =>
      db.transaction({ role: 'agency_system' }, (tx) =>
        queryRows<{ id: number; note: string }>(
          tx,
          sql`INSERT INTO ${sql.raw(table)} (id, note) VALUES (${id}, ${note}) RETURNING id, note`,
        ),
      );
    await insert(1, 'first');
    const merged = await counted(() => insert(2, "it's \\ merged"));
    expect(merged.trips).toHaveLength(2);
    expect(merged.result).toEqual([{ id: 2, note: "it's \\ merged" }]);

    // A failing first statement (duplicate key) keeps its error code and rolls back; the connection serves on.
    const duplicate = await counted(() => insert(2, 'again').catch((error: unknown) => error));
    expect(databaseError(duplicate.result)?.code).toBe('23505');
    expect(duplicate.trips).toEqual([expect.stringMatching(/^BEGIN; .*; EXECUTE /), 'ROLLBACK']);
    const rows = await db.systemTx((tx) => queryRows(tx, sql.raw(`SELECT id, note FROM ${table} ORDER BY id`)));
    expect(rows).toEqual([
      { id: 1, note: 'first' },
      { id: 2, note: "it's \\ merged" },
    ]);
    await db.systemTx((tx) => tx.execute(sql.raw(`DROP TABLE ${table}`)));
  });

  it('sends the opening apart when a value cannot be a literal (a NUL character), with the same error as before', async () => {
    await db.readTx(ORG, (tx) => queryRows(tx, sql`SELECT ${'warm'}::text AS t`));
    const nul = await counted(() =>
      db.readTx(ORG, (tx) => queryRows(tx, sql`SELECT ${'a\u0000b'}::text AS t`)).catch((error: unknown) => error),
    );
    expect(databaseError(nul.result)?.code).toBe('22021');
    expect(nul.trips[0]).toMatch(/^BEGIN; [^]*ROLE agency_app$/);
    expect(nul.trips.at(-1)).toBe('ROLLBACK');
  });

  it('sends nothing for a transaction that fails before its first statement', async () => {
    const failed = await counted(() =>
      db
        .readTx(ORG, async () => {
          throw new Error('before any statement');
        })
        .catch((error: unknown) => error),
    );
    expect((failed.result as Error).message).toBe('before any statement');
    expect(failed.trips).toEqual([]);
    // ... and one that runs no statement at all still opens and commits (its read probe needs it).
    const empty = await counted(() => db.readTx(ORG, async () => 'nothing'));
    expect(empty.result).toBe('nothing');
    expect(empty.trips).toEqual([expect.stringMatching(/^BEGIN; /), 'COMMIT']);
  });

  it('keeps the opening apart with DATABASE_PREPARED_STATEMENTS=false (what a pooler in transaction mode needs)', async () => {
    await unprepared.readTx(ORG, (tx) => queryRows(tx, echo()));
    const again = await counted(() => unprepared.readTx(ORG, (tx) => queryRows(tx, echo())));
    expect(again.trips).toHaveLength(3);
    expect(again.result).toEqual([expected]);
  });
});
