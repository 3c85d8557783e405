// The worker's queue: webhook_deliveries is the queue itself (claim with SKIP LOCKED and a lease, then complete).
import { and, eq, isNull, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import {
  webhookSubscriptions,
  type WebhookDeliveryStatus,
  type WebhookSubscriptionRow,
} from '../../db/schema.ts';
import type { StoredEvent } from '../../platform/events/envelope.ts';

export interface ClaimedDelivery {
  id: string;
  claimId: string;
  /** The attempt row the claim opened (in flight until its outcome is written). */
  attemptId: string;
  organizationId: string;
  subscriptionId: string;
  attemptCount: number;
  url: string;
  enabled: boolean;
  /** The signing secrets as stored: sealed (or in clear, from an earlier version); the worker opens them. */
  secrets: string[];
  event: StoredEvent;
}

interface ClaimRow {
  id: string;
  attempt_id: string;
  organization_id: string;
  subscription_id: string;
  attempt_count: number;
  url: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  event_id: string;
  event_type: string;
  event_created_at: string | Date;
  livemode: boolean;
  actor: { kind: string; userId: string | null } | string;
  data: Record<string, unknown> | string;
  sequence: string | number;
}

/**
 * What the delivery log says of an attempt whose worker stopped (kill -9, a lost connection) before
 * writing its outcome: the request may have reached the receiver, so the next attempt can be a
 * duplicate, which receivers tell by `webhook-id`.
 */
export const LOST_ATTEMPT =
  'no outcome recorded: the worker stopped during this attempt (the receiver may have received it)';

const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

/**
 * Claims up to `limit` due deliveries for `leaseMs` (FOR UPDATE SKIP LOCKED: concurrent workers
 * never claim the same row), so that no subscription has more than `perSubscription` in flight in
 * this worker, counting the `inFlight` ones it already has (subscription id -> count). Returns each
 * with its subscription's URL and signing secrets and its event: the whole send in one round trip.
 *
 * The subscriptions with PENDING rows are walked one index probe each (a recursive skip scan of
 * `webhook_deliveries_pending_idx`), and each gives at most its free slots of due rows, oldest first;
 * the oldest of those are then locked. A subscription's backlog is thus never scanned to reach
 * another's. (Scanning all due rows in time order instead, a hanging receiver's growing backlog made
 * every claim slower and delayed every other receiver: docs/reliability.md, hanging receiver.)
 */
export async function claimDue(
  tx: Tx,
  options: {
    limit: number;
    perSubscription: number;
    inFlight: Record<string, number>;
    leaseMs: number;
    claimId: string;
    /** Ids for the attempts the claim opens, at least `limit` of them. */
    attemptIds: string[];
  },
): Promise<ClaimedDelivery[]> {
  const rows = await queryRows<ClaimRow>(
    tx,
    sql`
    WITH RECURSIVE pending AS (
      (SELECT subscription_id AS id FROM webhook_deliveries WHERE status = 'PENDING'
       ORDER BY subscription_id LIMIT 1)
      UNION ALL
      SELECT (SELECT subscription_id FROM webhook_deliveries
              WHERE status = 'PENDING' AND subscription_id > pending.id
              ORDER BY subscription_id LIMIT 1)
      FROM pending WHERE pending.id IS NOT NULL
    ), candidates AS (
      SELECT due.organization_id, due.id, due.next_attempt_at
      FROM pending
      CROSS JOIN LATERAL (
        SELECT organization_id, id, next_attempt_at FROM webhook_deliveries
        WHERE subscription_id = pending.id AND status = 'PENDING' AND next_attempt_at <= now()
          AND (locked_until IS NULL OR locked_until <= now())
        ORDER BY next_attempt_at
        LIMIT greatest(0, ${options.perSubscription}
                          - coalesce((${JSON.stringify(options.inFlight)}::jsonb ->> pending.id)::int, 0))
      ) due
      WHERE pending.id IS NOT NULL
      ORDER BY due.next_attempt_at
      -- Twice the need: rows another worker locked meanwhile are skipped below.
      LIMIT ${options.limit * 2}
    ), picked AS (
      SELECT organization_id, id FROM webhook_deliveries
      WHERE (organization_id, id) IN (SELECT organization_id, id FROM candidates) AND status = 'PENDING'
        AND (locked_until IS NULL OR locked_until <= now())
      ORDER BY next_attempt_at
      LIMIT ${options.limit}
      FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE webhook_deliveries d
      SET locked_until = now() + ${options.leaseMs} * interval '1 millisecond', claim_id = ${options.claimId}
      FROM picked p
      WHERE d.organization_id = p.organization_id AND d.id = p.id
      RETURNING d.id, d.organization_id, d.subscription_id, d.attempt_count, d.event_id
    ), numbered AS (
      SELECT c.*, ${JSON.stringify(options.attemptIds)}::jsonb ->> (row_number() OVER (ORDER BY c.id) - 1)::int
               AS attempt_id
      FROM claimed c
    ), lost AS (
      -- The attempts of an earlier claim that never wrote an outcome: its worker is gone.
      UPDATE webhook_attempts a SET error = ${LOST_ATTEMPT}
      FROM claimed c
      WHERE a.organization_id = c.organization_id AND a.delivery_id = c.id AND a.duration_ms IS NULL AND a.error IS NULL
      RETURNING a.id
    ), started AS (
      -- This claim's attempt, in the log from now on: in flight until the worker writes its outcome.
      INSERT INTO webhook_attempts (id, organization_id, subscription_id, delivery_id, attempt, started_at)
      SELECT n.attempt_id, n.organization_id, n.subscription_id, n.id,
             (SELECT count(*) FROM webhook_attempts w WHERE w.organization_id = n.organization_id AND w.delivery_id = n.id) + 1, now()
      FROM numbered n JOIN webhook_subscriptions s ON s.organization_id = n.organization_id AND s.id = n.subscription_id
      WHERE s.enabled
      RETURNING id
    )
    SELECT n.id, n.attempt_id, n.organization_id, n.subscription_id, n.attempt_count, s.url, s.enabled, s.secret,
           CASE WHEN s.previous_secret_expires_at > now() THEN s.previous_secret END AS previous_secret,
           e.id AS event_id, e.type AS event_type, e.created_at AS event_created_at, e.livemode,
           e.actor, e.data, e.sequence
    FROM numbered n
    JOIN webhook_subscriptions s ON s.organization_id = n.organization_id AND s.id = n.subscription_id
    JOIN events e ON e.organization_id = n.organization_id AND e.id = n.event_id`,
  );
  return rows.map((row) => ({
    id: row.id,
    claimId: options.claimId,
    attemptId: row.attempt_id,
    organizationId: row.organization_id,
    subscriptionId: row.subscription_id,
    attemptCount: Number(row.attempt_count),
    url: row.url,
    enabled: row.enabled,
    secrets: row.previous_secret ? [row.secret, row.previous_secret] : [row.secret],
    event: {
      id: row.event_id,
      type: row.event_type,
      createdAt: new Date(row.event_created_at),
      organizationId: row.organization_id,
      livemode: row.livemode,
      actor: json(row.actor),
      data: json(row.data),
      sequence: Number(row.sequence),
    },
  }));
}

const jsonOrNull = (value: Record<string, string> | null) => (value === null ? null : JSON.stringify(value));

export interface AttemptResult {
  status: WebhookDeliveryStatus;
  /** For a retry: milliseconds until the next attempt. */
  retryInMs: number | null;
  /** The attempt to log; null when none was made (subscription disabled). */
  attempt: {
    startedAt: Date;
    durationMs: number;
    statusCode: number | null;
    error: string | null;
    responseBody: string | null;
    /** The headers sent; null when nothing was sent. */
    requestHeaders: Record<string, string> | null;
    responseHeaders: Record<string, string> | null;
  } | null;
  lastError: string | null;
  lastStatusCode: number | null;
}

/**
 * Writes the delivery's new state if the claim is still ours (false otherwise: a worker whose lease
 * lapsed and was re-claimed changes nothing of the delivery), and the attempt's outcome either way.
 */
export async function completeClaim(
  tx: Tx,
  delivery: ClaimedDelivery,
  result: AttemptResult,
): Promise<boolean> {
  const made = result.attempt === null ? 0 : 1;
  const updated = await queryRows<{ id: string }>(
    tx,
    sql`
    UPDATE webhook_deliveries
    SET status = ${result.status}, attempt_count = attempt_count + ${made},
        next_attempt_at = ${
          result.retryInMs === null ? sql`NULL` : sql`now() + ${result.retryInMs} * interval '1 millisecond'`
        },
        locked_until = NULL, claim_id = NULL, last_status_code = ${result.lastStatusCode},
        last_error = ${result.lastError}, updated_at = now(),
        completed_at = ${result.status === 'PENDING' ? sql`NULL` : sql`now()`}
    WHERE organization_id = ${delivery.organizationId} AND id = ${delivery.id} AND claim_id = ${delivery.claimId}
    RETURNING id`,
  );
  await writeAttempt(tx, delivery.organizationId, delivery.attemptId, result.attempt);
  return updated.length > 0;
}

/**
 * Writes the outcome of the attempt the claim opened: also when the claim lapsed meanwhile (the
 * request was made, the log says what came of it); without an outcome (nothing sent: subscription
 * disabled) the opened row is removed.
 */
async function writeAttempt(
  tx: Tx,
  organizationId: string,
  attemptId: string,
  attempt: AttemptResult['attempt'],
): Promise<void> {
  if (attempt === null) {
    await queryRows(
      tx,
      sql`DELETE FROM webhook_attempts
          WHERE organization_id = ${organizationId} AND id = ${attemptId} AND duration_ms IS NULL`,
    );
    return;
  }
  await queryRows(
    tx,
    sql`
    UPDATE webhook_attempts
    SET started_at = ${attempt.startedAt.toISOString()}::timestamptz, duration_ms = ${attempt.durationMs},
        status_code = ${attempt.statusCode}, error = ${attempt.error}, response_body = ${attempt.responseBody},
        request_headers = ${jsonOrNull(attempt.requestHeaders)}::jsonb,
        response_headers = ${jsonOrNull(attempt.responseHeaders)}::jsonb
    WHERE organization_id = ${organizationId} AND id = ${attemptId}`,
  );
}

/**
 * After a failed attempt: starts (or continues) the subscription's failing run; returns the
 * subscription with its start. Only the first failure of a run writes the row. Every failed attempt
 * used to update it, and a row update holds the row's lock until commit: the attempts of a hanging
 * receiver, which time out together, then queued on that lock one transaction after the other,
 * each holding a pooled connection, and deliveries to every other receiver waited for a connection
 * (docs/reliability.md, hanging receiver).
 */
export async function markFailing(tx: Tx, subscriptionId: string): Promise<WebhookSubscriptionRow | null> {
  const started = await tx
    .update(webhookSubscriptions)
    .set({ failingSince: sql`now()` })
    .where(and(eq(webhookSubscriptions.id, subscriptionId), isNull(webhookSubscriptions.failingSince)))
    .returning();
  if (started[0]) return started[0];
  const rows = await tx
    .select()
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.id, subscriptionId));
  return rows[0] ?? null;
}

export interface Success {
  delivery: ClaimedDelivery;
  startedAt: Date;
  durationMs: number;
  statusCode: number;
  responseBody: string | null;
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string> | null;
}

/**
 * Writes many successful attempts at once (the common case, batched by the worker): each delivery
 * still ours becomes SUCCEEDED, every attempt gets its outcome, and the subscriptions' failure clocks
 * stop. Two statements whatever the batch size.
 */
export async function completeSuccesses(tx: Tx, successes: Success[]): Promise<void> {
  if (successes.length === 0) return;
  const rows = JSON.stringify(
    successes.map((s) => ({
      id: s.delivery.id,
      claim_id: s.delivery.claimId,
      organization_id: s.delivery.organizationId,
      subscription_id: s.delivery.subscriptionId,
      attempt_id: s.delivery.attemptId,
      started_at: s.startedAt.toISOString(),
      duration_ms: s.durationMs,
      status_code: s.statusCode,
      response_body: s.responseBody,
      request_headers: s.requestHeaders,
      response_headers: s.responseHeaders,
    })),
  );
  await queryRows(
    tx,
    sql`
    WITH done AS (
      UPDATE webhook_deliveries d
      SET status = 'SUCCEEDED', attempt_count = attempt_count + 1, next_attempt_at = NULL, locked_until = NULL,
          claim_id = NULL, last_status_code = v.status_code, last_error = NULL, updated_at = now(),
          completed_at = now()
      FROM jsonb_to_recordset(${rows}::jsonb) AS v(organization_id text, id text, claim_id text, status_code int)
      WHERE d.organization_id = v.organization_id AND d.id = v.id AND d.claim_id = v.claim_id
      RETURNING d.id
    )
    -- Every attempt's outcome, also of a claim that lapsed meanwhile (see writeAttempt).
    UPDATE webhook_attempts a
    SET started_at = v.started_at, duration_ms = v.duration_ms, status_code = v.status_code, error = NULL,
        response_body = v.response_body, request_headers = v.request_headers, response_headers = v.response_headers
    FROM jsonb_to_recordset(${rows}::jsonb) AS v(organization_id text, attempt_id text, started_at timestamptz, duration_ms int,
                                                 status_code int, response_body text, request_headers jsonb,
                                                 response_headers jsonb)
    WHERE a.organization_id = v.organization_id AND a.id = v.attempt_id`,
  );
  const subscriptionIds = [...new Set(successes.map((s) => s.delivery.subscriptionId))];
  await queryRows(
    tx,
    sql`
    UPDATE webhook_subscriptions SET failing_since = NULL
    WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify(subscriptionIds)}::jsonb))
      AND failing_since IS NOT NULL`,
  );
}
