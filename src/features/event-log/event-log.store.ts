import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import type { StoredEvent } from '../../platform/events/envelope.ts';

interface EventLogRow {
  id: string;
  organization_id: string;
  type: string;
  livemode: boolean;
  actor: StoredEvent['actor'] | string;
  data: Record<string, unknown> | string;
  created_at: string | Date;
  sequence: string | number;
}

export interface EventLogFilter {
  /** Exact types and the objects of `object.*` patterns; both empty (or `*` given): every type. */
  types: string[];
  objects: string[];
  after?: number;
  before?: number;
  createdFrom?: Date;
  createdTo?: Date;
  order: 'asc' | 'desc';
  limit: number;
}

const COLUMNS = sql`id, organization_id, type, livemode, actor, data, created_at, sequence`;
const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

function toStoredEvent(row: EventLogRow): StoredEvent {
  return {
    id: row.id,
    type: row.type,
    createdAt: new Date(row.created_at),
    organizationId: row.organization_id,
    livemode: row.livemode,
    actor: json(row.actor),
    data: json(row.data),
    sequence: Number(row.sequence),
  };
}

/**
 * One page of the organization's committed events by `sequence` (the unique index on
 * (organization_id, sequence) serves both orders and the cursor bounds).
 */
export async function listEvents(
  tx: Tx,
  organizationId: string,
  filter: EventLogFilter,
): Promise<StoredEvent[]> {
  const conditions: SQL[] = [sql`organization_id = ${organizationId}`, sql`sequence IS NOT NULL`];
  if (filter.after !== undefined) conditions.push(sql`sequence > ${filter.after}`);
  if (filter.before !== undefined) conditions.push(sql`sequence < ${filter.before}`);
  if (filter.createdFrom)
    conditions.push(sql`created_at >= ${filter.createdFrom.toISOString()}::timestamptz`);
  if (filter.createdTo) conditions.push(sql`created_at < ${filter.createdTo.toISOString()}::timestamptz`);
  const typeMatches: SQL[] = [];
  if (filter.types.length > 0)
    typeMatches.push(
      sql`type IN (${sql.join(
        filter.types.map((t) => sql`${t}`),
        sql`, `,
      )})`,
    );
  if (filter.objects.length > 0)
    typeMatches.push(
      sql`split_part(type, '.', 1) IN (${sql.join(
        filter.objects.map((o) => sql`${o}`),
        sql`, `,
      )})`,
    );
  if (typeMatches.length > 0) conditions.push(sql`(${sql.join(typeMatches, sql` OR `)})`);
  const direction = filter.order === 'asc' ? sql`ASC` : sql`DESC`;
  const rows = await queryRows<EventLogRow>(
    tx,
    sql`SELECT ${COLUMNS} FROM events WHERE ${sql.join(conditions, sql` AND `)}
        ORDER BY sequence ${direction} LIMIT ${filter.limit}`,
  );
  return rows.map(toStoredEvent);
}

export async function findEvent(tx: Tx, organizationId: string, id: string): Promise<StoredEvent | null> {
  const rows = await queryRows<EventLogRow>(
    tx,
    sql`SELECT ${COLUMNS} FROM events
        WHERE organization_id = ${organizationId} AND id = ${id} AND sequence IS NOT NULL`,
  );
  return rows[0] ? toStoredEvent(rows[0]) : null;
}
