import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';

/** A crashed request's claim lapses after this, so a retry can run it again. */
export const CLAIM_LEASE_S = 120;
export const RECORD_TTL_H = 24;

/**
 * The scope of the operator's own Idempotency-Keys: an admin POST naming no organization (creating
 * one). No organization has this id (ids are random base62; this one is not), and the table has no
 * foreign key to organizations since migration 0026; its rows expire like every other.
 */
export const OPERATOR_IDEMPOTENCY_SCOPE = 'org_operator00000000000000';

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' }
  | { kind: 'completed'; status: number; body: string };

/**
 * Claims `key` for one request, atomically: the unique (organization_id, key) index makes
 * concurrent identical requests wait for the first insert and then see its claim.
 */
export async function claimIdempotencyKey(
  tx: Tx,
  organizationId: string,
  key: string,
  fingerprint: string,
): Promise<Claim> {
  const inserted = await queryRows(
    tx,
    sql`
    INSERT INTO idempotency_keys AS k (organization_id, key, fingerprint, status, locked_until, created_at, expires_at)
    VALUES (${organizationId}, ${key}, ${fingerprint}, 'in_progress',
            now() + make_interval(secs => ${CLAIM_LEASE_S}), now(), now() + make_interval(hours => ${RECORD_TTL_H}))
    ON CONFLICT (organization_id, key) DO UPDATE
      SET fingerprint = excluded.fingerprint, status = 'in_progress', response_status = NULL,
          response_body = NULL, locked_until = excluded.locked_until, created_at = excluded.created_at,
          expires_at = excluded.expires_at
      WHERE k.expires_at <= now()
         OR (k.status = 'in_progress' AND k.locked_until <= now() AND k.fingerprint = excluded.fingerprint)
    RETURNING 1 AS claimed`,
  );
  if (inserted.length > 0) return { kind: 'claimed' };

  const existing = await queryRows<{
    fingerprint: string;
    status: string;
    response_status: number | null;
    response_body: string | null;
  }>(
    tx,
    sql`
    SELECT fingerprint, status, response_status, response_body FROM idempotency_keys
    WHERE organization_id = ${organizationId} AND key = ${key}`,
  );
  const row = existing[0];
  // Deleted between the two statements by a failed first attempt: treat as still in progress.
  if (!row) return { kind: 'in_progress' };
  if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (row.status !== 'completed' || row.response_status === null) return { kind: 'in_progress' };
  return { kind: 'completed', status: Number(row.response_status), body: row.response_body ?? '' };
}

export async function completeIdempotencyKey(
  tx: Tx,
  organizationId: string,
  key: string,
  status: number,
  body: string,
): Promise<void> {
  await tx.execute(sql`
    UPDATE idempotency_keys
    SET status = 'completed', response_status = ${status}, response_body = ${body}, locked_until = NULL
    WHERE organization_id = ${organizationId} AND key = ${key}`);
}

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
