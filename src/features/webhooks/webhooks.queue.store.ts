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
      SELECT due.id, due.next_attempt_at
      FROM pending
      CROSS JOIN LATERAL (
        SELECT id, next_attempt_at FROM webhook_deliveries
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
      SELECT id FROM webhook_deliveries
      WHERE id IN (SELECT id FROM candidates) AND status = 'PENDING'
        AND (locked_until IS NULL OR locked_until <= now())
      ORDER BY next_attempt_at
      LIMIT ${options.limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE webhook_deliveries d
    SET locked_until = now() + ${options.leaseMs} * interval '1 millisecond', claim_id = ${options.claimId}
    FROM picked p, webhook_subscriptions s, events e
    WHERE d.id = p.id AND s.id = d.subscription_id AND e.id = d.event_id
    RETURNING d.id, d.organization_id, d.subscription_id, d.attempt_count, s.url, s.enabled, s.secret,
              CASE WHEN s.previous_secret_expires_at > now() THEN s.previous_secret END AS previous_secret,
              e.id AS event_id, e.type AS event_type, e.created_at AS event_created_at, e.livemode,
              e.actor, e.data, e.sequence`,
  );
  return rows.map((row) => ({
    id: row.id,
    claimId: options.claimId,
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
 * Writes an attempt's outcome if the claim is still ours (a worker whose lease lapsed and was
 * re-claimed writes nothing); false otherwise.
 */
export async function completeClaim(
  tx: Tx,
  delivery: ClaimedDelivery,
  result: AttemptResult,
  attemptId: string,
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
    WHERE id = ${delivery.id} AND claim_id = ${delivery.claimId}
    RETURNING id`,
  );
  if (updated.length === 0) return false;
  if (result.attempt) {
    const a = result.attempt;
    await queryRows(
      tx,
      sql`
      INSERT INTO webhook_attempts (id, organization_id, subscription_id, delivery_id, attempt, started_at,
                                    duration_ms, status_code, error, response_body, request_headers,
                                    response_headers)
      SELECT ${attemptId}, ${delivery.organizationId}, ${delivery.subscriptionId}, ${delivery.id},
             (SELECT count(*) FROM webhook_attempts WHERE delivery_id = ${delivery.id}) + 1,
             ${a.startedAt.toISOString()}::timestamptz, ${a.durationMs}, ${a.statusCode}, ${a.error},
             ${a.responseBody}, ${jsonOrNull(a.requestHeaders)}::jsonb, ${jsonOrNull(a.responseHeaders)}::jsonb`,
    );
  }
  return true;
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
  attemptId: string;
  startedAt: Date;
  durationMs: number;
  statusCode: number;
  responseBody: string | null;
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string> | null;
}

/**
 * Writes many successful attempts at once (the common case, batched by the worker): each delivery
 * still ours becomes SUCCEEDED, gets its attempt logged, and its subscription's failure clock stops.
 * Three statements whatever the batch size.
 */
export async function completeSuccesses(tx: Tx, successes: Success[]): Promise<void> {
  if (successes.length === 0) return;
  const rows = JSON.stringify(
    successes.map((s) => ({
      id: s.delivery.id,
      claim_id: s.delivery.claimId,
      organization_id: s.delivery.organizationId,
      subscription_id: s.delivery.subscriptionId,
      attempt_id: s.attemptId,
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
      FROM jsonb_to_recordset(${rows}::jsonb) AS v(id text, claim_id text, status_code int)
      WHERE d.id = v.id AND d.claim_id = v.claim_id
      RETURNING d.id
    )
    INSERT INTO webhook_attempts (id, organization_id, subscription_id, delivery_id, attempt, started_at,
                                  duration_ms, status_code, response_body, request_headers, response_headers)
    SELECT v.attempt_id, v.organization_id, v.subscription_id, v.id,
           (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = v.id) + 1,
           v.started_at, v.duration_ms, v.status_code, v.response_body, v.request_headers, v.response_headers
    FROM jsonb_to_recordset(${rows}::jsonb) AS v(id text, organization_id text, subscription_id text,
                                                 attempt_id text, started_at timestamptz, duration_ms int,
                                                 status_code int, response_body text, request_headers jsonb,
                                                 response_headers jsonb)
    JOIN done ON done.id = v.id`,
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
