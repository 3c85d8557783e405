import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';

/**
 * A statement that bumps a per-organization counter (`contact`, `deal`, ...) and returns its new
 * `value`, for a CTE; with `when`, only when that condition holds (no row otherwise). Counter rows
 * are bumped in the caller's transaction, so a rolled-back insert gives its number back.
 */
export function bumpCounterSql(organizationId: string, counter: string, when?: SQL): SQL {
  const source =
    when === undefined
      ? sql`VALUES (${organizationId}, ${counter}, 1)`
      : sql`SELECT ${organizationId}::text, ${counter}::text, 1 WHERE ${when}`;
  return sql`INSERT INTO organization_counters (organization_id, name, value) ${source}
        ON CONFLICT (organization_id, name) DO UPDATE SET value = organization_counters.value + 1
        RETURNING value`;
}

/** The human-readable code of a counter value (SQL): its prefix and at least six digits (CT-000042). */
export function codeSql(prefix: string, value: SQL): SQL {
  return sql`${prefix}::text || '-' || lpad(${value}::text, greatest(6, length(${value}::text)), '0')`;
}

/**
 * The next human-readable code of a per-organization counter, its prefix and six digits
 * (`contact`, `CT` -> CT-000001, CT-000002, ...): the counter row is bumped in the caller's
 * transaction, so a rolled-back insert gives its number back.
 */
export async function nextCode(
  tx: Tx,
  organizationId: string,
  counter: string,
  prefix: string,
): Promise<string> {
  const rows = await queryRows<{ code: string }>(
    tx,
    sql`WITH bumped AS (${bumpCounterSql(organizationId, counter)}) SELECT ${codeSql(prefix, sql`bumped.value`)} AS code FROM bumped`,
  );
  const code = rows[0]?.code;
  if (code === undefined) throw new Error(`counter ${counter} returned no value`);
  return code;
}
