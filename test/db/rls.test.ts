import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, queryRows, type Database } from '../../src/db/database.ts';
import { apiKeys, events, idempotencyKeys, organizations } from '../../src/db/schema.ts';
import { recordEvent } from '../../src/platform/events/record.ts';
import { newId } from '../../src/platform/ids/ids.ts';
import { FEATURES } from '../../src/features.ts';
import { installFeatures } from '../../src/platform/features/manifest.ts';
import { TEST_DATABASE_URL, testDatabase } from '../helpers/test-app.ts';

// The event catalog recordEvent checks against (no app is built here).
installFeatures(FEATURES);

let db: Database;
const orgA = newId('org');
const orgB = newId('org');

beforeAll(async () => {
  db = await testDatabase();
  await db.systemTx((tx) =>
    tx.insert(organizations).values([
      { id: orgA, name: 'A', plan: 'BUSINESS' },
      { id: orgB, name: 'B', plan: 'BUSINESS' },
    ]),
  );
  for (const org of [orgA, orgB]) {
    await db.tenantTx(org, async (tx) => {
      await tx.insert(apiKeys).values({
        id: newId('key'),
        organizationId: org,
        type: 'secret',
        mode: 'live',
        keyHash: newId('hash'),
        keyPrefix: 'service_sk_live_abcd',
        scopes: [],
      });
      await tx.insert(idempotencyKeys).values({ organizationId: org, key: 'rls-test-key', fingerprint: 'f', status: 'in_progress' });
      await recordEvent(tx, {
        type: 'api_key.updated',
        data: {
          apiKey: {
            id: 'key_x',
            type: 'secret',
            mode: 'live',
            name: null,
            keyPrefix: 'p',
            scopes: [],
            accessLevel: 1,
            status: 'active',
            expiresAt: null,
            createdAt: new Date().toISOString(),
          },
          changes: [],
        },
        actor: { kind: 'SYSTEM', userId: null },
      });
    });
  }
});

const tenantTables = { organizations, api_keys: apiKeys, events, idempotency_keys: idempotencyKeys };

describe(`row-level security (${TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it.each(Object.entries(tenantTables))('a query without the tenant setting sees no %s', async (_name, table) => {
    const rows = await db.transaction({ role: 'agency_app' }, (tx) => tx.select().from(table));
    expect(rows).toEqual([]);
  });

  it.each(Object.entries(tenantTables))('a tenant sees only its own %s', async (_name, table) => {
    const rows = await db.tenantTx(orgA, (tx) => tx.select().from(table));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows as Array<{ organizationId?: string; id: string }>) {
      expect(row.organizationId ?? row.id).toBe(orgA);
    }
  });

  it('refuses to insert a row for another tenant', async () => {
    await expect(
      db.tenantTx(orgA, (tx) =>
        tx.insert(idempotencyKeys).values({ organizationId: orgB, key: 'sneaky-key', fingerprint: 'f', status: 'in_progress' }),
      ),
    ).rejects.toThrow();
  });

  it("cannot update or delete another tenant's rows", async () => {
    await db.tenantTx(orgA, async (tx) => {
      await tx.execute(sql`UPDATE organizations SET name = 'hacked' WHERE id = ${orgB}`);
      await tx.execute(sql`DELETE FROM api_keys WHERE organization_id = ${orgB}`);
    });
    const [b] = await db.tenantTx(orgB, (tx) => queryRows<{ name: string }>(tx, sql`SELECT name FROM organizations`));
    expect(b?.name).toBe('B');
    const keys = await db.tenantTx(orgB, (tx) => tx.select().from(apiKeys));
    expect(keys.length).toBe(1);
  });

  it('does not leak the tenant setting to the next transaction on the same connection', async () => {
    await db.tenantTx(orgA, (tx) => tx.select().from(organizations));
    const setting = await db.transaction({ role: 'agency_app' }, (tx) =>
      queryRows<{ value: string | null }>(tx, sql`SELECT current_setting('app.organization_id', true) AS value`),
    );
    expect(setting[0]?.value ?? '').toBe('');
  });

  it('refuses a malformed organization id before it reaches SQL', async () => {
    await expect(db.tenantTx("org_x'; DROP TABLE events; --", async () => 1)).rejects.toThrow(/malformed organization id/);
  });

  it('forces RLS with both policies on every table that has organization_id', async () => {
    const tables = await db.systemTx((tx) =>
      queryRows<{ table_name: string; forced: boolean; enabled: boolean; policies: string[] }>(
        tx,
        sql`SELECT c.relname AS table_name, c.relforcerowsecurity AS forced, c.relrowsecurity AS enabled,
                   coalesce(array_agg(p.polname::text ORDER BY p.polname) FILTER (WHERE p.polname IS NOT NULL), '{}') AS policies
            FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
            LEFT JOIN pg_policy p ON p.polrelid = c.oid
            WHERE c.relkind = 'r'
              AND (EXISTS (SELECT 1 FROM information_schema.columns col
                           WHERE col.table_schema = 'public' AND col.table_name = c.relname
                             AND col.column_name = 'organization_id')
                   OR c.relname = 'organizations')
            GROUP BY c.relname, c.relforcerowsecurity, c.relrowsecurity`,
      ),
    );
    expect(tables.length).toBeGreaterThanOrEqual(4);
    for (const table of tables) {
      expect(table, table.table_name).toMatchObject({ enabled: true, forced: true });
      expect([...table.policies].sort(), table.table_name).toEqual(['system_access', 'tenant_isolation']);
    }
  });

  it('rolls back every statement of a failed tenant transaction', async () => {
    const key = `rollback-${Date.now()}`;
    await expect(
      db.tenantTx(orgA, async (tx) => {
        await tx.insert(idempotencyKeys).values({ organizationId: orgA, key, fingerprint: 'f', status: 'in_progress' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const rows = await db.tenantTx(orgA, (tx) => queryRows(tx, sql`SELECT 1 FROM idempotency_keys WHERE key = ${key}`));
    expect(rows).toEqual([]);
  });
});

describe.runIf(TEST_DATABASE_URL !== undefined)('migrations on PostgreSQL', () => {
  it('two processes migrating a fresh database at the same time both succeed', async () => {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    const name = `agency_mig_${process.pid}_${Date.now()}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(TEST_DATABASE_URL as string);
    url.pathname = `/${name}`;
    // Through PgBouncer (TEST_VIA_PGBOUNCER) without named prepared statements, as the other files.
    const preparedStatements = process.env.TEST_DATABASE_PREPARED_STATEMENTS !== 'false';
    const first = await openDatabase({ databaseUrl: url.toString(), dataDir: 'memory://', preparedStatements });
    const second = await openDatabase({ databaseUrl: url.toString(), dataDir: 'memory://', preparedStatements });
    try {
      await Promise.all([first.migrate(), second.migrate()]);
      await first.migrate();
      const rows = await first.systemTx((tx) => tx.select().from(organizations));
      expect(rows).toEqual([]);
    } finally {
      await first.close();
      await second.close();
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});

describe('embedded database directory', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'agency-crm-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is locked: a second open of the same DATA_DIR is refused while the first is open', async () => {
    const first = await openDatabase({ databaseUrl: undefined, dataDir: dir });
    try {
      await expect(openDatabase({ databaseUrl: undefined, dataDir: dir })).rejects.toThrow(/in use by process/);
    } finally {
      await first.close();
    }
    const reopened = await openDatabase({ databaseUrl: undefined, dataDir: dir });
    await reopened.close();
  });

  it('takes over a stale lock left by a process that died', async () => {
    writeFileSync(join(dir, 'agency-crm.lock'), '999999');
    const db2 = await openDatabase({ databaseUrl: undefined, dataDir: dir });
    await db2.migrate();
    await db2.close();
  });
});
