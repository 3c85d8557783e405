// The SQL half of a list's cursor mode (the HTTP half is src/platform/http/pagination.ts): rows in
// (updated_at, id) order after a position, read from the (organization_id, updated_at, id) indexes.
import { asc, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { inline, type Bind } from './statements.ts';

/**
 * A row's place in the walk: its `updated_at` as UTC text to the microsecond
 * (`2026-11-26T09:30:00.123456Z`) and its id. Never a JS Date: a Date keeps milliseconds, and a
 * position rounded down would hand out again every row of the same millisecond.
 */
export interface KeysetPosition {
  updatedAt: string;
  id: string;
}

/** What one cursor page reads: rows strictly after `after` and `updatedAfter` (both UTC µs text), `limit` of them. */
export interface Keyset {
  after?: KeysetPosition;
  updatedAfter?: string;
  limit: number;
}

/** A row and its position, as a store returns a cursor page. */
export interface Keyed<T> {
  row: T;
  key: KeysetPosition;
}

interface KeysetColumns {
  updatedAt: AnyPgColumn;
  id: AnyPgColumn;
}

/**
 * The conditions of a cursor page: a row comparison, which the B-tree on (organization_id,
 * updated_at, id) serves as one range after the organization's equality (the comparisons of
 * timestamptz and text are leakproof, so row-level security does not stop them being index conditions).
 */
export function keysetConditions(columns: KeysetColumns, keyset: Keyset, bind: Bind = inline): SQL[] {
  const conditions: SQL[] = [];
  if (keyset.updatedAfter !== undefined) {
    conditions.push(sql`${columns.updatedAt} > ${bind(keyset.updatedAfter)}::timestamptz`);
  }
  if (keyset.after !== undefined) {
    conditions.push(
      sql`(${columns.updatedAt}, ${columns.id}) > (${bind(keyset.after.updatedAt)}::timestamptz, ${bind(keyset.after.id)}::text)`,
    );
  }
  return conditions;
}

/** Oldest change first; the id orders rows of one instant (a bulk write stamps them all alike). */
export function keysetOrder(columns: KeysetColumns): SQL[] {
  return [asc(columns.updatedAt), asc(columns.id)];
}

/** `updated_at` as the position's text: UTC, microseconds, whatever the session's TimeZone or DateStyle. */
export function keysetPosition(updatedAt: AnyPgColumn): SQL<string> {
  return sql<string>`to_char(${updatedAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/** What a shape key needs to know of a keyset: which of its conditions are present. */
export function keysetShape(keyset: Keyset): string {
  return `keyset${keyset.after ? ' after' : ''}${keyset.updatedAfter !== undefined ? ' since' : ''}`;
}
