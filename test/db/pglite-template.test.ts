/**
 * A new embedded database starts from the saved copy of a migrated one (src/db/pglite-template.ts,
 * decision 0260): the first is made the long way and saved, the next load it, and what loads is the
 * same database; a copy that cannot be read is dropped, and a directory that already holds anything
 * else is never touched. The copies of this file are kept in a folder of its own.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, queryRows } from '../../src/db/database.ts';
import { pendingAfter } from '../../src/db/driver.ts';
import { isEmptyDataDir } from '../../src/db/pglite-template.ts';

const root = mkdtempSync(join(tmpdir(), 'agency-template-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const EVERY_MIGRATION = pendingAfter(0);

async function open(dataDir: string, templateDir: string) {
  const db = await openDatabase({ databaseUrl: undefined, dataDir, pgliteTemplateDir: templateDir });
  const applied = await db.migrate();
  const [{ migrations, tables }] = (await db.systemTx(async (tx) => {
    // As the owner, as startFile does: the system role may not read drizzle's journal.
    await tx.execute(sql`RESET ROLE`);
    return queryRows<{ migrations: number; tables: number }>(
      tx,
      sql`SELECT (SELECT count(*)::int FROM drizzle.__drizzle_migrations) AS migrations,
                 (SELECT count(*)::int FROM pg_tables WHERE schemaname = 'public') AS tables`,
    );
  })) as [{ migrations: number; tables: number }];
  return { db, applied, migrations, tables };
}

const templates = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

describe.skipIf(process.env.TEST_DATABASE_URL)('the migrated PGlite template', () => {
  const cache = join(root, 'cache');

  it('is saved by the first new database and loaded by the next, which is the same database', async () => {
    const first = await open('memory://', cache);
    expect(first.applied).toEqual(EVERY_MIGRATION);
    await first.db.close();
    expect(templates(cache)).toHaveLength(1);
    expect(templates(cache)[0]).toMatch(/^pglite-migrated-[0-9a-f]{32}\.tar$/);

    // A new DATA_DIR holds the secrets key before the database opens (src/server.ts): it stays its own.
    const newDir = join(root, 'new-dir');
    mkdirSync(newDir, { recursive: true });
    writeFileSync(join(newDir, 'secrets.key'), 'this directory\'s own key');
    for (const dataDir of [newDir, 'memory://']) {
      const loaded = await open(dataDir, cache);
      // Loaded: nothing left to apply, and every migration and table there.
      expect(loaded.applied).toEqual([]);
      expect(loaded.migrations).toBe(EVERY_MIGRATION.length);
      expect(loaded.tables).toBe(first.tables);
      await loaded.db.close();
    }
    expect(readFileSync(join(newDir, 'secrets.key'), 'utf8')).toBe("this directory's own key");
  }, 120_000);

  it('drops a copy it cannot read and makes the database the long way, saving a good copy', async () => {
    const [name] = templates(cache);
    const path = join(cache, name as string);
    writeFileSync(path, 'not a tarball');
    const again = await open('memory://', cache);
    expect(again.applied).toEqual(EVERY_MIGRATION);
    expect(again.migrations).toBe(EVERY_MIGRATION.length);
    await again.db.close();
    expect(templates(cache)).toEqual([name]);
    expect(statSync(path).size).toBeGreaterThan(1_000_000);
  }, 120_000);

  it('is never saved from a directory: its dump would hold the lock and the secrets key', async () => {
    const diskCache = join(root, 'disk-cache');
    const dir = join(root, 'on-disk');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'secrets.key'), 'k');
    const made = await open(dir, diskCache);
    expect(made.applied).toEqual(EVERY_MIGRATION);
    await made.db.close();
    expect(templates(diskCache)).toEqual([]);
  }, 120_000);

  it('is used only for a directory holding nothing but the service\'s own files', () => {
    const dir = join(root, 'used');
    mkdirSync(dir, { recursive: true });
    expect(isEmptyDataDir(dir)).toBe(true);
    writeFileSync(join(dir, 'agency-crm.lock'), '1');
    writeFileSync(join(dir, 'secrets.key'), 'k');
    expect(isEmptyDataDir(dir)).toBe(true);
    writeFileSync(join(dir, 'notes.txt'), 'an operator left this here');
    expect(isEmptyDataDir(dir)).toBe(false);
  });
});
