import { and, asc, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Database, type Tx } from '../../src/db/database.ts';
import { apiKeys, organizations, type OrganizationRow } from "../../src/db/schema.ts";
import { inline, StatementCache, type Bind } from '../../src/db/statements.ts';
import { newId } from '../../src/platform/ids/ids.ts';
import { testDatabase } from '../helpers/test-app.ts';

let db: Database;
const withKey = newId('org');
const withoutKey = newId('org');
const keyId = newId('key');

beforeAll(async () => {
  db = await testDatabase();
  await db.systemTx(async (tx) => {
    await tx.insert(organizations).values([
      { id: withKey, name: 'Keyed Realty', plan: 'BUSINESS' },
      { id: withoutKey, name: 'Keyless Realty', plan: 'STARTER' },
    ]);
    await tx.insert(apiKeys).values({
      id: keyId,
      organizationId: withKey,
      type: 'secret',
      mode: 'live',
      keyHash: newId('hash'),
      keyPrefix: 'service_sk_live_stmt',
      scopes: [],
    });
  });
});

/** Organizations (one of them) with their keys, left-joined: nested fields, a Date and a null join. */
function organizationWithKeys(tx: Tx, id: string, plan: OrganizationRow["plan"] | undefined, bind: Bind) {
  const conditions = [eq(organizations.id, bind(id))];
  if (plan !== undefined) conditions.push(eq(organizations.plan, bind(plan)));
  return tx
    .select({
      organization: { id: organizations.id, name: organizations.name, createdAt: organizations.createdAt },
      key: { id: apiKeys.id, prefix: apiKeys.keyPrefix },
      one: sql<number>`1`.mapWith(Number),
    })
    .from(organizations)
    .leftJoin(apiKeys, eq(apiKeys.organizationId, organizations.id))
    .where(and(...conditions))
    .orderBy(asc(organizations.id))
    .limit(bind(5));
}

describe('StatementCache', () => {
  it('answers exactly what the uncached query answers, for other values under the same shape', async () => {
    const cache = new StatementCache({ verify: false });
    for (const id of [withKey, withoutKey, withKey]) {
      const [cached, direct] = await db.systemTx(async (tx) => [
        await cache.select(tx, 'by id', (bind) => organizationWithKeys(tx, id, undefined, bind)),
        await organizationWithKeys(tx, id, undefined, inline),
      ]);
      expect(cached).toEqual(direct);
      expect(cached).toHaveLength(1);
      expect(cached[0]?.organization.id).toBe(id);
      expect(cached[0]?.organization.createdAt).toBeInstanceOf(Date);
      expect(cached[0]?.one).toBe(1);
      // A left join without a match maps to null, as Drizzle's own execution does.
      expect(cached[0]?.key).toEqual(id === withKey ? { id: keyId, prefix: 'service_sk_live_stmt' } : null);
    }
    expect(cache.size).toBe(1);
  });

  it('in verify mode, refuses a key that does not name every shape', async () => {
    const cache = new StatementCache({ verify: true });
    await db.systemTx(async (tx) => {
      await cache.select(tx, 'too coarse', (bind) => organizationWithKeys(tx, withKey, undefined, bind));
      await expect(
        cache.select(tx, 'too coarse', (bind) => organizationWithKeys(tx, withKey, 'BUSINESS', bind)),
      ).rejects.toThrow(/statement shape "too coarse" compiled to another text/);
    });
  });

  it('in verify mode, refuses a value left unbound (it would be reused for other values)', async () => {
    const cache = new StatementCache({ verify: true });
    await db.systemTx(async (tx) => {
      // Binds every value but the id.
      const idInline = (id: string) => (bind: Bind) =>
        organizationWithKeys(tx, id, undefined, ((value) => (value === id ? value : bind(value))) as Bind);
      await cache.select(tx, 'id inline', idInline(withKey));
      await expect(cache.select(tx, 'id inline', idInline(withoutKey))).rejects.toThrow(
        /statement shape "id inline" has an unbound value/,
      );
    });
  });

  it('keeps at most `limit` shapes and still answers the ones beyond it', async () => {
    const cache = new StatementCache({ verify: false, limit: 1 });
    await db.systemTx(async (tx) => {
      await cache.select(tx, 'any plan', (bind) => organizationWithKeys(tx, withKey, undefined, bind));
      const starter = await cache.select(tx, 'one plan', (bind) =>
        organizationWithKeys(tx, withoutKey, 'STARTER', bind),
      );
      const business = await cache.select(tx, 'one plan', (bind) =>
        organizationWithKeys(tx, withoutKey, 'BUSINESS', bind),
      );
      expect(starter.map((row) => row.organization.id)).toEqual([withoutKey]);
      expect(business).toEqual([]);
    });
    expect(cache.size).toBe(1);
  });
});

describe('read performance settings', () => {
  it('vacuums contacts and properties after 1 % new rows, keeping their index-only scans off the heap', async () => {
    const options = await db.systemTx((tx) =>
      queryRows<{ relname: string; reloptions: string[] | null }>(
        tx,
        sql`SELECT relname, reloptions FROM pg_class
            WHERE relname IN ('contacts', 'properties') AND relkind = 'r' AND relnamespace = 'public'::regnamespace
            ORDER BY relname`,
      ),
    );
    expect(options.map((row) => row.relname)).toEqual(['contacts', 'properties']);
    for (const row of options)
      expect(row.reloptions ?? []).toEqual(
        expect.arrayContaining([
          'autovacuum_vacuum_insert_scale_factor=0.01',
          'autovacuum_vacuum_scale_factor=0.02',
          'autovacuum_analyze_scale_factor=0.02',
        ]),
      );
  });
});
