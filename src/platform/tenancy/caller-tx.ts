import type { Database, Tx } from '../../db/database.ts';
import type { Caller, CallerOrganization } from '../auth/caller.ts';
import { databaseError, EXCLUSION_VIOLATION, UNIQUE_VIOLATION } from '../../db/errors.ts';
import { Errors } from '../errors/errors.ts';

// A request's unit of work (decision 0246): what a service with an effect outside the database uses.
export { checkpoint, keepIfFailed, resumedAt, whenRolledBack } from '../../db/unit-of-work.ts';

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

/**
 * Constraint name -> the 409 DUPLICATE message of a unique or exclusion violation: a parallel write
 * committed the same value between a transaction's own check and its commit.
 */
export type ConflictMessages = Readonly<Record<string, string>>;

/** The 409 DUPLICATE a unique or exclusion violation of a constraint in `conflicts` stands for. */
export function conflictOf(error: unknown, conflicts: ConflictMessages): Error | null {
  const failure = databaseError(error);
  if (failure?.code !== UNIQUE_VIOLATION && failure?.code !== EXCLUSION_VIOLATION) return null;
  const message =
    failure.constraint !== null && Object.hasOwn(conflicts, failure.constraint)
      ? conflicts[failure.constraint]
      : undefined;
  return message === undefined ? null : Errors.duplicate(message);
}
