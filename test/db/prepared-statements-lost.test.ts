/**
 * A pooler in transaction mode drops a connection's named prepared statements when it hands the server
 * session on (issue 37 item 4, decision 0243). Without a pooler the same happens when the server's
 * statements are deallocated behind node-postgres's back: the driver still believes them prepared and
 * the next use fails with 26000. The service then switches to unnamed statements, runs the failed
 * transaction again once (no error reaches the caller), warns once, and /readyz says so.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, queryRows, type Database } from '../../src/db/database.ts';
import { organizations } from '../../src/db/schema.ts';
import { newId } from '../../src/platform/ids/ids.ts';
import { sql } from 'drizzle-orm';
import { buildTestApp, TEST_DATABASE_URL } from '../helpers/test-app.ts';

// Directly on PostgreSQL: through the pooled leg's PgBouncer the loss may come before the one made here
// (test/db/pgbouncer.test.ts covers that leg).
const run = TEST_DATABASE_URL !== undefined && process.env.TEST_VIA_PGBOUNCER !== '1';

describe.runIf(run)('a named prepared statement lost on the server', () => {
  let db: Database;
  const id = newId('org');
  const seen: string[] = [];

  beforeAll(async () => {
    db = await openDatabase({
      databaseUrl: TEST_DATABASE_URL,
      dataDir: 'memory://',
      // One connection: the statements dropped are the ones the next transaction uses.
      poolSize: 1,
      preparedStatements: true,
    });
    db.onWarning((message) => seen.push(message));
    await db.systemTx((tx) => tx.insert(organizations).values({ id, name: 'Pooled Realty', plan: 'STARTER' }));
  });
  afterAll(async () => {
    await db?.close();
  });

  const read = () =>
    db.systemTx((tx) =>
      tx.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, id)).limit(1),
    );

  it('is survived: the transaction runs again unnamed, one warning names the setting, and it stays so', async () => {
    expect(await read()).toEqual([{ name: 'Pooled Realty' }]);
    expect(await read()).toEqual([{ name: 'Pooled Realty' }]);
    // What a pooler does: the server session no longer holds the connection's statements.
    await db.systemTx((tx) => queryRows(tx, sql`DEALLOCATE ALL`));
    expect(db.warnings()).toEqual([]);

    expect(await read()).toEqual([{ name: 'Pooled Realty' }]);
    expect(db.warnings()).toHaveLength(1);
    expect(db.warnings()[0]).toContain('DATABASE_PREPARED_STATEMENTS=false');
    expect(seen).toEqual(db.warnings());

    // Unnamed from now on: dropping the server's statements again changes nothing, and no second warning.
    await db.systemTx((tx) => queryRows(tx, sql`DEALLOCATE ALL`));
    expect(await read()).toEqual([{ name: 'Pooled Realty' }]);
    expect(await read()).toEqual([{ name: 'Pooled Realty' }]);
    expect(seen).toHaveLength(1);
  });

  it('is logged once by the app and shown in /readyz (degraded, with the warning)', async () => {
    const fresh = await openDatabase({
      databaseUrl: TEST_DATABASE_URL,
      dataDir: 'memory://',
      poolSize: 1,
      preparedStatements: true,
    });
    let logged = '';
    const app = await buildTestApp(
      { LOG_LEVEL: 'warn' },
      { db: fresh, logStream: { write: (line: string) => void (logged += line) } },
    );
    try {
      const readFresh = () =>
        fresh.systemTx((tx) => tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, id)));
      await readFresh();
      await readFresh();
      await fresh.systemTx((tx) => queryRows(tx, sql`DEALLOCATE ALL`));
      expect(await readFresh()).toEqual([{ id }]);
      expect(logged.match(/DATABASE_PREPARED_STATEMENTS=false/g)).toHaveLength(1);
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({
        status: 'degraded',
        warnings: [expect.stringContaining('DATABASE_PREPARED_STATEMENTS=false')],
      });
    } finally {
      await app.close();
      await fresh.close();
    }
  });
});
