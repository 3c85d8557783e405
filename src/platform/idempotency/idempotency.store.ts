import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';

export const RECORD_TTL_H = 24;

/**
 * The scope of the operator's own Idempotency-Keys: an admin POST naming no organization (creating
 * one). No organization has this id (ids are random base62; this one is not), and the table has no
 * foreign key to organizations since migration 0026; its rows expire like every other.
 */
export const OPERATOR_IDEMPOTENCY_SCOPE = 'org_operator00000000000000';

/** One key's record as a new request finds it (committed rows only: a running first is invisible). */
export type Found =
  | { kind: 'none' }
  | { kind: 'mismatch' }
  | { kind: 'completed'; status: number; body: string }
  /** A request committed a recovery point and has not answered: running, or crashed past it. */
  | { kind: 'recovering'; point: string; data: unknown }
  /** A claim written before migration 0028, apart from its effects: it holds until it lapses. */
  | { kind: 'held' };

const LOCK_NOT_AVAILABLE = '55P03';

export async function findIdempotencyRecord(
  tx: Tx,
  organizationId: string,
  key: string,
  fingerprint: string,
): Promise<Found> {
  const [row] = await queryRows<{
    fingerprint: string;
    status: string;
    response_status: number | null;
    response_body: string | null;
    recovery_point: string | null;
    recovery_data: unknown;
    expired: boolean;
    lapsed: boolean;
  }>(
    tx,
    sql`
    SELECT fingerprint, status, response_status, response_body, recovery_point, recovery_data,
           expires_at <= now() AS expired, coalesce(locked_until <= now(), true) AS lapsed
    FROM idempotency_keys
    WHERE organization_id = ${organizationId} AND key = ${key}`,
  );
  if (!row || row.expired) return { kind: 'none' };
  if (row.status === 'in_progress' && row.recovery_point === null && row.lapsed) return { kind: 'none' };
  if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (row.status === 'completed' && row.response_status !== null) {
    return { kind: 'completed', status: Number(row.response_status), body: row.response_body ?? '' };
  }
  if (row.recovery_point !== null)
    return { kind: 'recovering', point: row.recovery_point, data: row.recovery_data };
  return { kind: 'held' };
}

/**
 * Claims `key` first in the transaction of the request's effects: the row is uncommitted until they
 * commit, so a concurrent duplicate's insert waits on the unique index for the first's outcome, at
 * most `waitMs` (lock_timeout). Returns false when the key is taken: by a first that committed, or
 * one still running past the wait.
 */
export async function claimIdempotencyKey(
  tx: Tx,
  organizationId: string,
  key: string,
  fingerprint: string,
  waitMs: number,
): Promise<boolean> {
  await tx.execute(sql`SELECT set_config('lock_timeout', ${String(Math.max(1, Math.round(waitMs)))}, true)`);
  try {
    const inserted = await queryRows(
      tx,
      sql`
      INSERT INTO idempotency_keys AS k (organization_id, key, fingerprint, status, created_at, expires_at)
      VALUES (${organizationId}, ${key}, ${fingerprint}, 'in_progress', now(),
              now() + make_interval(hours => ${RECORD_TTL_H}))
      ON CONFLICT (organization_id, key) DO UPDATE
        SET fingerprint = excluded.fingerprint, status = 'in_progress', response_status = NULL,
            response_body = NULL, locked_until = NULL, recovery_point = NULL, recovery_data = NULL,
            created_at = excluded.created_at, expires_at = excluded.expires_at
        WHERE k.expires_at <= now()
           OR (k.status = 'in_progress' AND k.recovery_point IS NULL AND coalesce(k.locked_until <= now(), true))
      RETURNING 1 AS claimed`,
    );
    await tx.execute(sql`SET LOCAL lock_timeout TO DEFAULT`);
    return inserted.length > 0;
  } catch (error) {
    if (lockNotAvailable(error)) return false;
    throw error;
  }
}

/**
 * A later transaction of the same request, or a retry resuming it: locks the record (at most
 * `waitMs`) and says whether it is still in progress at `point` (a concurrent retry did not finish it).
 */
export async function lockIdempotencyRecord(
  tx: Tx,
  organizationId: string,
  key: string,
  point: string | null,
  waitMs: number,
): Promise<boolean> {
  await tx.execute(sql`SELECT set_config('lock_timeout', ${String(Math.max(1, Math.round(waitMs)))}, true)`);
  try {
    const [row] = await queryRows<{ status: string; recovery_point: string | null }>(
      tx,
      sql`
      SELECT status, recovery_point FROM idempotency_keys
      WHERE organization_id = ${organizationId} AND key = ${key}
      FOR UPDATE`,
    );
    await tx.execute(sql`SET LOCAL lock_timeout TO DEFAULT`);
    return (
      row !== undefined && row.status === 'in_progress' && (point === null || row.recovery_point === point)
    );
  } catch (error) {
    if (lockNotAvailable(error)) return false;
    throw error;
  }
}

function lockNotAvailable(error: unknown): boolean {
  for (
    let cause = error as { code?: string; cause?: unknown } | undefined;
    cause;
    cause = cause.cause as never
  ) {
    if (cause.code === LOCK_NOT_AVAILABLE) return true;
  }
  return false;
}

/** Records the recovery point a retry resumes from (the last statement of a checkpoint). */
export async function markIdempotencyRecord(
  tx: Tx,
  organizationId: string,
  key: string,
  point: string,
  data: unknown,
): Promise<void> {
  await tx.execute(sql`
    UPDATE idempotency_keys SET recovery_point = ${point}, recovery_data = ${JSON.stringify(data ?? null)}::jsonb
    WHERE organization_id = ${organizationId} AND key = ${key} AND status = 'in_progress'`);
}

/**
 * Stores the answer: in the transaction of the effects (the claim's row), or alone for a request
 * that wrote nothing (then inserted; a first answer stored by a concurrent duplicate is kept).
 */
export async function storeIdempotentAnswer(
  tx: Tx,
  organizationId: string,
  key: string,
  fingerprint: string,
  status: number,
  body: string,
): Promise<void> {
  await tx.execute(sql`
    INSERT INTO idempotency_keys AS k
      (organization_id, key, fingerprint, status, response_status, response_body, created_at, expires_at)
    VALUES (${organizationId}, ${key}, ${fingerprint}, 'completed', ${status}, ${body}, now(),
            now() + make_interval(hours => ${RECORD_TTL_H}))
    ON CONFLICT (organization_id, key) DO UPDATE
      SET status = 'completed', response_status = excluded.response_status,
          response_body = excluded.response_body, locked_until = NULL, recovery_point = NULL, recovery_data = NULL
      WHERE k.status = 'in_progress' AND k.fingerprint = excluded.fingerprint`);
}

/** Forgets an unanswered record: the request failed in a way the client may retry with the same key. */
export async function releaseIdempotencyKey(tx: Tx, organizationId: string, key: string): Promise<void> {
  await tx.execute(sql`
    DELETE FROM idempotency_keys
    WHERE organization_id = ${organizationId} AND key = ${key} AND status = 'in_progress'`);
}

/** Removes up to `batchSize` expired records (worker job, across tenants); returns how many. */
export async function purgeExpiredIdempotencyKeys(tx: Tx, batchSize: number): Promise<number> {
  const rows = await queryRows(
    tx,
    sql`
    DELETE FROM idempotency_keys
    WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT ${batchSize})
    RETURNING 1`,
  );
  return rows.length;
}

export interface StoredResponse {
  organizationId: string;
  key: string;
  body: string;
}

/**
 * Up to `limit` stored bodies to seal again, across tenants: plaintext left by an earlier version,
 * and bodies sealed under one of `oldKeyIds` (SECRETS_KEY_PREVIOUS). Bodies under a key this
 * process does not hold are left alone.
 */
export async function findResponsesToSeal(
  tx: Tx,
  oldKeyIds: readonly string[],
  limit: number,
): Promise<StoredResponse[]> {
  const rows = await queryRows<{ organization_id: string; key: string; response_body: string }>(
    tx,
    sql`
    SELECT organization_id, key, response_body FROM idempotency_keys
    WHERE response_body IS NOT NULL
      AND (left(response_body, 7) <> 'enc:v1:' OR substr(response_body, 8, 8) = ANY(string_to_array(${oldKeyIds.join(',')}, ',')))
    LIMIT ${limit}`,
  );
  return rows.map((row) => ({ organizationId: row.organization_id, key: row.key, body: row.response_body }));
}

/** Replaces a stored body if it still is the one read (a concurrent write wins). */
export async function replaceStoredResponse(tx: Tx, stored: StoredResponse, sealed: string): Promise<void> {
  await tx.execute(sql`
    UPDATE idempotency_keys SET response_body = ${sealed}
    WHERE organization_id = ${stored.organizationId} AND key = ${stored.key} AND response_body = ${stored.body}`);
}

/** Up to `limit` stored bodies of an organization, by key after `afterKey`. */
export async function findStoredResponses(
  tx: Tx,
  organizationId: string,
  afterKey: string,
  limit: number,
): Promise<StoredResponse[]> {
  const rows = await queryRows<{ organization_id: string; key: string; response_body: string }>(
    tx,
    sql`
    SELECT organization_id, key, response_body FROM idempotency_keys
    WHERE organization_id = ${organizationId} AND key > ${afterKey} AND response_body IS NOT NULL
    ORDER BY key LIMIT ${limit}`,
  );
  return rows.map((row) => ({ organizationId: row.organization_id, key: row.key, body: row.response_body }));
}
