import type { Database, Tx } from '../../db/database.ts';
import type { Caller, CallerOrganization } from '../auth/caller.ts';
import { conflictOf, type ConflictMessages } from './tenant-organization.ts';

/**
 * The tenant transactions of a request, opened from its caller only (decision 0241): the organization
 * is the one the credential names (checked at the edge, active and, for writes, not read-only), never
 * an id a route passes along. RLS is set in the same round trip as BEGIN (db/driver.ts).
 */

/** A read of the caller's organization: on a replica when one is configured (read-your-writes kept). */
export function readAs<T>(
  db: Database,
  caller: Caller,
  work: (tx: Tx, organization: CallerOrganization) => Promise<T>,
): Promise<T> {
  return db.readTx(caller.organization.id, (tx) => work(tx, caller.organization));
}

/**
 * A write of the caller's organization, in one transaction: its events recorded inside it. Unique and
 * exclusion violations of the constraints named in `conflicts` become 409 DUPLICATE with their message.
 */
export async function writeAs<T>(
  db: Database,
  caller: Caller,
  work: (tx: Tx, organization: CallerOrganization) => Promise<T>,
  conflicts: ConflictMessages = {},
): Promise<T> {
  try {
    return await db.tenantTx(caller.organization.id, (tx) => work(tx, caller.organization));
  } catch (error) {
    throw conflictOf(error, conflicts) ?? error;
  }
}
