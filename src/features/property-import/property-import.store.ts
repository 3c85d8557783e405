import { and, asc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { agents, properties, type PropertyRow } from '../../db/schema.ts';
import type { NewProperty } from '../properties/index.ts';

/** The ids among `ids` that name agents of the organization. */
export async function findAgentIds(tx: Tx, organizationId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await tx
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.organizationId, organizationId), inArray(agents.id, ids)));
  return new Set(rows.map((row) => row.id));
}

/**
 * The organization's properties with these codes, locked until the transaction ends so a parallel
 * import or edit cannot change them between this comparison and the upsert. Locked in code order,
 * as the upsert writes, so two imports of overlapping files wait for each other instead of deadlocking.
 */
export async function findPropertiesByCodes(
  tx: Tx,
  organizationId: string,
  codes: string[],
): Promise<PropertyRow[]> {
  if (codes.length === 0) return [];
  return tx
    .select()
    .from(properties)
    .where(and(eq(properties.organizationId, organizationId), inArray(properties.code, codes)))
    .orderBy(asc(properties.code))
    .for('update');
}

const columns = getTableColumns(properties);
/** Every column an import replaces; the id, tenant and creation time of an existing row stay. */
const replaced = Object.fromEntries(
  Object.entries(columns)
    .filter(
      ([name, column]) =>
        // Generated columns (price_value, area_value) follow their source; they cannot be set.
        !['id', 'organizationId', 'createdAt', 'updatedAt'].includes(name) && column.generated === undefined,
    )
    .map(([name, column]) => [name, sql.raw(`excluded.${column.name}`)]),
) as Record<string, SQL>;

/**
 * Inserts or replaces (by organization and code) every row in ONE statement. `inserted` tells a
 * created row from an updated one: a freshly inserted tuple has no deleting transaction (xmax = 0).
 */
export async function upsertProperties(
  tx: Tx,
  rows: NewProperty[],
): Promise<(PropertyRow & { inserted: boolean })[]> {
  if (rows.length === 0) return [];
  return tx
    .insert(properties)
    .values(rows)
    .onConflictDoUpdate({
      target: [properties.organizationId, properties.code],
      set: { ...replaced, updatedAt: sql`now()` },
    })
    .returning({ ...columns, inserted: sql<boolean>`(xmax = 0)` });
}
