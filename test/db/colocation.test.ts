/**
 * Every tenant table can be distributed by organization (decision 0222, docs/scaling.md "Distributing by
 * tenant (Citus)"). The rule Citus and any shard-per-tenant layout impose, read from the catalog of the
 * migrated database: a tenant table's primary key, unique keys and exclusion constraints include
 * `organization_id`, and a foreign key between two tenant tables pairs `organization_id` with
 * `organization_id` at the same position, so a row and what it points at always live on the same shard.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Database, type Tx } from '../../src/db/database.ts';
import { contacts, deals, organizations, pipelineStages, pipelines } from '../../src/db/schema.ts';
import { databaseError } from '../../src/db/errors.ts';
import { newId } from '../../src/platform/ids/ids.ts';
import { TEST_DATABASE_URL, testDatabase } from '../helpers/test-app.ts';

/**
 * The reference tables: read before the organization is known, so their keys stay global and Citus
 * would copy them to every node instead of splitting them by tenant. Every other table of the schema
 * has an `organization_id` and is distributed by it.
 */
const REFERENCE_TABLES: Record<string, string> = {
  // The tenant itself (and its test twin, live_organization_id): every tenant table points at it.
  organizations: 'the tenants',
  // Authentication finds a key by its hash (unique, global) before it knows the organization.
  api_keys: 'found by key_hash',
  // The console's one-time link and its cookie session are found by their token's hash, likewise.
  console_links: 'found by token_hash',
  console_sessions: 'found by token_hash',
  // An agent's iCalendar subscription URL is found by its token's hash, likewise (issue 26).
  calendar_feeds: 'found by token_hash',
};

const TENANT_COLUMN = 'organization_id';

/** What the checks read of one schema's catalog. */
interface TableRow {
  table_name: string;
  has_tenant_column: boolean;
}
interface KeyIndexRow {
  table_name: string;
  name: string;
  kind: 'primary key' | 'unique' | 'exclusion';
  columns: (string | null)[];
  /** An exclusion constraint's operators, one per column. */
  operators: string[] | null;
}
interface ForeignKeyRow {
  table_name: string;
  name: string;
  columns: string[];
  referenced_table: string;
  referenced_columns: string[];
  /** pg_constraint.confdeltype / confupdtype: a no action, r restrict, c cascade, n set null, d set default. */
  on_delete: string;
  on_update: string;
  /** The columns ON DELETE SET NULL / SET DEFAULT (...) names; empty: all of the key's columns. */
  delete_set_columns: string[];
}

const columnList = (columns: readonly (string | null)[]) => columns.map((c) => c ?? '(expression)').join(', ');

/**
 * The co-location rule's violations in `schema`, one sentence each naming the table and the constraint
 * or index; `referenceTables` are the schema's reference tables. An empty list: the schema obeys.
 */
async function colocationViolations(tx: Tx, schema: string, referenceTables: ReadonlySet<string>): Promise<string[]> {
  const tables = await queryRows<TableRow>(
    tx,
    sql`SELECT c.relname AS table_name,
               EXISTS (SELECT 1 FROM pg_attribute a
                       WHERE a.attrelid = c.oid AND a.attname = ${TENANT_COLUMN} AND NOT a.attisdropped) AS has_tenant_column
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p')
        ORDER BY c.relname`,
  );
  const keys = await queryRows<KeyIndexRow>(
    tx,
    sql`SELECT t.relname AS table_name, coalesce(con.conname, ic.relname) AS name,
               CASE WHEN i.indisprimary THEN 'primary key' WHEN i.indisexclusion THEN 'exclusion' ELSE 'unique' END AS kind,
               ARRAY(SELECT a.attname::text
                     FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, position)
                     LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                     WHERE k.position <= i.indnkeyatts ORDER BY k.position) AS columns,
               CASE WHEN con.contype = 'x' THEN
                 ARRAY(SELECT o.oprname::text FROM unnest(con.conexclop) WITH ORDINALITY AS e(op, position)
                       JOIN pg_operator o ON o.oid = e.op ORDER BY e.position)
               END AS operators
        FROM pg_index i
        JOIN pg_class t ON t.oid = i.indrelid
        JOIN pg_namespace n ON n.oid = t.relnamespace
        JOIN pg_class ic ON ic.oid = i.indexrelid
        LEFT JOIN pg_constraint con
          ON con.conindid = i.indexrelid AND con.conrelid = i.indrelid AND con.contype IN ('p', 'u', 'x')
        WHERE n.nspname = ${schema} AND (i.indisunique OR i.indisexclusion)
        ORDER BY t.relname, name`,
  );
  const foreignKeys = await queryRows<ForeignKeyRow>(
    tx,
    sql`SELECT src.relname AS table_name, con.conname AS name, dst.relname AS referenced_table,
               ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, position)
                     JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
                     ORDER BY k.position) AS columns,
               ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, position)
                     JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum
                     ORDER BY k.position) AS referenced_columns,
               con.confdeltype::text AS on_delete, con.confupdtype::text AS on_update,
               ARRAY(SELECT a.attname::text FROM unnest(con.confdelsetcols) AS k(attnum)
                     JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum) AS delete_set_columns
        FROM pg_constraint con
        JOIN pg_class src ON src.oid = con.conrelid
        JOIN pg_namespace n ON n.oid = src.relnamespace
        JOIN pg_class dst ON dst.oid = con.confrelid
        WHERE con.contype = 'f' AND n.nspname = ${schema}
        ORDER BY src.relname, con.conname`,
  );

  const violations: string[] = [];
  const distributed = new Set<string>();
  for (const table of tables) {
    if (referenceTables.has(table.table_name)) continue;
    if (table.has_tenant_column) distributed.add(table.table_name);
    else violations.push(`${table.table_name}: no ${TENANT_COLUMN} column and not a reference table`);
  }
  for (const name of referenceTables) {
    if (!tables.some((t) => t.table_name === name)) violations.push(`${name}: listed as a reference table, not found`);
  }

  for (const table of distributed) {
    if (!keys.some((key) => key.table_name === table && key.kind === 'primary key'))
      violations.push(`${table}: no primary key`);
  }
  for (const key of keys.filter((k) => distributed.has(k.table_name))) {
    const position = key.columns.indexOf(TENANT_COLUMN);
    if (position === -1) {
      violations.push(`${key.table_name}: ${key.kind} ${key.name} (${columnList(key.columns)}) lacks ${TENANT_COLUMN}`);
    } else if (key.kind === 'exclusion' && key.operators?.[position] !== '=') {
      violations.push(`${key.table_name}: exclusion ${key.name} compares ${TENANT_COLUMN} with ${key.operators?.[position]}, not =`);
    }
  }

  for (const fk of foreignKeys) {
    const from = distributed.has(fk.table_name) ? 'distributed' : 'reference';
    const to = distributed.has(fk.referenced_table) ? 'distributed' : 'reference';
    const described = `foreign key ${fk.name} (${fk.columns.join(', ')}) -> ${fk.referenced_table} (${fk.referenced_columns.join(', ')})`;
    if (from === 'reference' && to === 'distributed') {
      violations.push(`${fk.table_name}: reference table with ${described} to a distributed table`);
      continue;
    }
    if (from !== 'distributed' || to !== 'distributed') continue;
    const position = fk.columns.indexOf(TENANT_COLUMN);
    if (position === -1 || fk.referenced_columns[position] !== TENANT_COLUMN) {
      violations.push(`${fk.table_name}: ${described} does not pair ${TENANT_COLUMN} on both sides`);
      continue;
    }
    // A SET NULL / SET DEFAULT that names no columns would null organization_id too.
    if (['n', 'd'].includes(fk.on_delete) && (fk.delete_set_columns.length === 0 || fk.delete_set_columns.includes(TENANT_COLUMN)))
      violations.push(`${fk.table_name}: ${described} sets ${TENANT_COLUMN} on delete; name the other columns`);
    if (!['a', 'r'].includes(fk.on_update))
      violations.push(`${fk.table_name}: ${described} changes ${TENANT_COLUMN} on update`);
  }
  return violations;
}

const ROLLBACK = new Error('rolled back on purpose');

/** Runs `fn` in a transaction as the database owner and rolls it back; returns what `fn` returned. */
async function inRolledBackTransaction<T>(db: Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  let result: T | undefined;
  await expect(
    db.systemTx(async (tx) => {
      // The owner, not agency_system: the probe creates a schema.
      await tx.execute(sql`RESET ROLE`);
      result = await fn(tx);
      throw ROLLBACK;
    }),
  ).rejects.toBe(ROLLBACK);
  return result as T;
}

let db: Database;
beforeAll(async () => {
  db = await testDatabase();
});

describe(`co-location by organization (${TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('every tenant table keys, references and excludes by organization_id; reference tables point at none', async () => {
    const found = await db.systemTx((tx) => colocationViolations(tx, 'public', new Set(Object.keys(REFERENCE_TABLES))));
    expect(found).toEqual([]);
    // Not vacuous: the tables and keys the rule is about are there.
    const counts = await db.systemTx((tx) =>
      queryRows<{ tables: number; composite_keys: number }>(
        tx,
        sql`SELECT (SELECT count(DISTINCT table_name)::int FROM information_schema.columns
                    WHERE table_schema = 'public' AND column_name = ${TENANT_COLUMN}) AS tables,
                   (SELECT count(*)::int FROM pg_constraint con JOIN pg_namespace n ON n.oid = con.connamespace
                    WHERE n.nspname = 'public' AND con.contype = 'f' AND array_length(con.conkey, 1) = 2) AS composite_keys`,
      ),
    );
    expect(counts[0]?.tables).toBeGreaterThan(30);
    expect(counts[0]?.composite_keys).toBeGreaterThan(30);
  });

  it('docs/scaling.md distributes every tenant table once, after the tables it references', async () => {
    const doc = readFileSync(new URL('../../docs/scaling.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Distributing by tenant (Citus)'));
    const references = [...section.matchAll(/create_reference_table\('(\w+)'\)/g)].map((m) => m[1]);
    const commands = [
      ...section.matchAll(/create_distributed_table\('(\w+)', 'organization_id'(?:, colocate_with => '(\w+)')?\)/g),
    ];
    const distributedInDoc = commands.map((m) => m[1] as string);
    expect(references[0]).toBe('organizations');
    expect([...references].sort()).toEqual(Object.keys(REFERENCE_TABLES).sort());
    // One co-location group: the first table starts it, every other joins it.
    expect(commands[0]?.[2]).toBeUndefined();
    for (const command of commands.slice(1)) expect(command[2], command[0]).toBe(distributedInDoc[0]);

    const { tables, edges } = await db.systemTx(async (tx) => ({
      tables: await queryRows<{ table_name: string }>(
        tx,
        sql`SELECT DISTINCT table_name FROM information_schema.columns
            WHERE table_schema = 'public' AND column_name = ${TENANT_COLUMN}`,
      ),
      edges: await queryRows<{ child: string; parent: string }>(
        tx,
        sql`SELECT src.relname AS child, dst.relname AS parent FROM pg_constraint con
            JOIN pg_class src ON src.oid = con.conrelid JOIN pg_class dst ON dst.oid = con.confrelid
            JOIN pg_namespace n ON n.oid = src.relnamespace
            WHERE con.contype = 'f' AND n.nspname = 'public' AND con.conrelid <> con.confrelid`,
      ),
    }));
    const distributed = tables.map((t) => t.table_name).filter((name) => !(name in REFERENCE_TABLES));
    expect([...distributedInDoc].sort()).toEqual(distributed.sort());
    for (const { child, parent } of edges) {
      if (!distributed.includes(child) || !distributed.includes(parent)) continue;
      expect(distributedInDoc.indexOf(parent), `${parent} before ${child}`).toBeLessThan(distributedInDoc.indexOf(child));
    }
  });

  it('reports each kind of violation, naming the table and the constraint (the check can fail)', async () => {
    const found = await inRolledBackTransaction(db, async (tx) => {
      // One statement per call: a prepared statement holds one command.
      const statements = `
        CREATE SCHEMA colocation_probe;
        SET LOCAL search_path = colocation_probe;
        CREATE TABLE tenants (id text PRIMARY KEY);
        CREATE TABLE parents (organization_id text NOT NULL, id text NOT NULL, PRIMARY KEY (organization_id, id));
        CREATE TABLE global_only (id text PRIMARY KEY);
        CREATE TABLE keyed_by_id (organization_id text NOT NULL, id text PRIMARY KEY);
        CREATE TABLE unique_by_code (organization_id text NOT NULL, id text NOT NULL, code text,
          PRIMARY KEY (organization_id, id), CONSTRAINT unique_by_code_code_key UNIQUE (code));
        CREATE UNIQUE INDEX unique_by_code_lower_idx ON unique_by_code (lower(code));
        CREATE TABLE overlapping (organization_id text NOT NULL, id text NOT NULL, during tstzrange,
          PRIMARY KEY (organization_id, id), CONSTRAINT overlapping_no_overlap EXCLUDE USING gist (during WITH &&));
        ALTER TABLE parents ADD CONSTRAINT parents_id_key UNIQUE (id);
        CREATE TABLE children (organization_id text NOT NULL, id text NOT NULL, parent_id text, other_parent_id text,
          nulled_parent_id text, PRIMARY KEY (organization_id, id),
          CONSTRAINT children_parent_fk FOREIGN KEY (parent_id) REFERENCES parents (id),
          CONSTRAINT children_swapped_fk FOREIGN KEY (organization_id, other_parent_id) REFERENCES parents (id, organization_id),
          CONSTRAINT children_nulled_fk FOREIGN KEY (organization_id, nulled_parent_id)
            REFERENCES parents (organization_id, id) ON DELETE SET NULL,
          CONSTRAINT children_tenant_fk FOREIGN KEY (organization_id) REFERENCES tenants (id) ON DELETE CASCADE);
        CREATE TABLE lookups (id text PRIMARY KEY, organization_id text NOT NULL, parent_id text,
          CONSTRAINT lookups_parent_fk FOREIGN KEY (organization_id, parent_id) REFERENCES parents (organization_id, id));
        CREATE TABLE unkeyed (organization_id text NOT NULL, note text);
      `;
      for (const statement of statements.split(';').filter((s) => s.trim() !== ''))
        await tx.execute(sql.raw(statement));
      return colocationViolations(tx, 'colocation_probe', new Set(['tenants', 'lookups', 'gone']));
    });
    expect([...found].sort()).toEqual(
      [
        'global_only: no organization_id column and not a reference table',
        'gone: listed as a reference table, not found',
        'keyed_by_id: primary key keyed_by_id_pkey (id) lacks organization_id',
        'unique_by_code: unique unique_by_code_code_key (code) lacks organization_id',
        'unique_by_code: unique unique_by_code_lower_idx ((expression)) lacks organization_id',
        'overlapping: exclusion overlapping_no_overlap (during) lacks organization_id',
        'parents: unique parents_id_key (id) lacks organization_id',
        'children: foreign key children_parent_fk (parent_id) -> parents (id) does not pair organization_id on both sides',
        'children: foreign key children_swapped_fk (organization_id, other_parent_id) -> parents (id, organization_id) does not pair organization_id on both sides',
        'children: foreign key children_nulled_fk (organization_id, nulled_parent_id) -> parents (organization_id, id) sets organization_id on delete; name the other columns',
        'unkeyed: no primary key',
        'lookups: reference table with foreign key lookups_parent_fk (organization_id, parent_id) -> parents (organization_id, id) to a distributed table',
      ].sort(),
    );
  });
});

describe('composite foreign keys at work', () => {
  const orgA = newId('org');
  const orgB = newId('org');
  const contactOf = { [orgA]: newId('ct'), [orgB]: newId('ct') };
  const pipelineId = newId('pipe');
  const stageId = newId('stage');

  beforeAll(async () => {
    await db.systemTx(async (tx) => {
      await tx.insert(organizations).values([
        { id: orgA, name: 'Colocated A', plan: 'BUSINESS' },
        { id: orgB, name: 'Colocated B', plan: 'BUSINESS' },
      ]);
      for (const org of [orgA, orgB])
        await tx.insert(contacts).values({
          id: contactOf[org] as string,
          organizationId: org,
          code: 'CT-000001',
          firstName: 'Linked',
          source: 'API',
          status: 'NEW',
          type: 'LEAD',
        });
      await tx.insert(pipelines).values({ id: pipelineId, organizationId: orgA, name: 'Sales' });
      await tx.insert(pipelineStages).values({
        id: stageId,
        organizationId: orgA,
        pipelineId,
        name: 'New',
        kind: 'OPEN',
        probability: 10,
        position: 0,
      });
    });
  });

  const dealOf = (organizationId: string, contactId: string): typeof deals.$inferInsert => ({
    id: newId('deal'),
    organizationId,
    code: `DL-${newId('x').slice(-6)}`,
    title: 'Loft',
    currency: 'EUR',
    probability: 10,
    status: 'OPEN',
    intent: 'PURCHASE',
    leadSource: 'API',
    contactId,
    pipelineId,
    stageId,
  });

  it("refuses a row pointing at another organization's row (foreign key violation)", async () => {
    const failure = await db
      .systemTx((tx) => tx.insert(deals).values(dealOf(orgA, contactOf[orgB] as string)))
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(databaseError(failure)?.code, String(failure)).toBe('23503');
  });

  it("deleting a contact nulls the deal's contact_id and keeps its organization_id (ON DELETE SET NULL (contact_id))", async () => {
    const deal = dealOf(orgA, contactOf[orgA] as string);
    await db.systemTx((tx) => tx.insert(deals).values(deal));
    await db.tenantTx(orgA, (tx) => tx.execute(sql`DELETE FROM contacts WHERE id = ${contactOf[orgA] as string}`));
    const rows = await db.systemTx((tx) =>
      queryRows<{ organization_id: string; contact_id: string | null }>(
        tx,
        sql`SELECT organization_id, contact_id FROM deals WHERE id = ${deal.id}`,
      ),
    );
    expect(rows).toEqual([{ organization_id: orgA, contact_id: null }]);
  });
});
