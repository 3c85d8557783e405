import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';

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
  const rows = await queryRows<{ value: string | number }>(
    tx,
    sql`INSERT INTO organization_counters (organization_id, name, value) VALUES (${organizationId}, ${counter}, 1)
        ON CONFLICT (organization_id, name) DO UPDATE SET value = organization_counters.value + 1
        RETURNING value`,
  );
  return `${prefix}-${String(Number(rows[0]?.value)).padStart(6, '0')}`;
}
