import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';

/**
 * The contact score rule (docs/contacts.md "Score"): every kind of activity earns points per
 * occurrence up to a cap, the freshest activity earns a recency bonus, and the sum is capped at
 * 100. Each term lists its activity as rows of `at` (when it happened) for one contact; adding a
 * kind of activity (inbound messages, issue 5) is one more entry here.
 */
interface ScoreTerm {
  kind: string;
  /** Points per occurrence. */
  points: number;
  /** Most points this kind can add. */
  cap: number;
  /** One row per occurrence, with its time as `at`, for the contact (an id, or SQL giving it). */
  rows: (organizationId: string, contactId: string | SQL) => SQL;
}

export const SCORE_TERMS: readonly ScoreTerm[] = [
  {
    kind: 'lead',
    points: 10,
    cap: 30,
    rows: (org, ct) =>
      sql`SELECT created_at AS at FROM leads WHERE organization_id = ${org} AND contact_id = ${ct}`,
  },
  {
    kind: 'visitRequest',
    points: 15,
    cap: 30,
    rows: (org, ct) =>
      sql`SELECT created_at AS at FROM visit_requests WHERE organization_id = ${org} AND contact_id = ${ct}`,
  },
  {
    // Booked online or entered in the back office; a cancelled or missed one is no sign of interest.
    kind: 'booking',
    points: 20,
    cap: 40,
    rows: (org, ct) =>
      sql`SELECT created_at AS at FROM appointments WHERE organization_id = ${org} AND contact_id = ${ct} AND status NOT IN ('CANCELLED', 'NO_SHOW')`,
  },
  {
    kind: 'finderSearch',
    points: 5,
    cap: 15,
    rows: (org, ct) =>
      sql`SELECT created_at AS at FROM finder_searches WHERE organization_id = ${org} AND contact_id = ${ct}`,
  },
  {
    // Distinct UTC days with product usage in the last 30 days (today included): one row per day.
    kind: 'usageDay',
    points: 2,
    cap: 20,
    rows: (org, ct) =>
      sql`SELECT max(last_occurred_at) AS at FROM usage_daily WHERE organization_id = ${org} AND contact_id = ${ct} AND day > (now() AT TIME ZONE 'UTC')::date - 30 GROUP BY day`,
  },
  {
    // Messages the contact sent us over the messaging channel.
    kind: 'inboundMessage',
    points: 5,
    cap: 20,
    rows: (org, ct) =>
      sql`SELECT created_at AS at FROM messages WHERE organization_id = ${org} AND contact_id = ${ct} AND direction = 'INBOUND'`,
  },
];

/** Bonus for the freshest activity of any kind, measured when the score is computed. */
export const RECENCY_BONUS = { within7Days: 15, within30Days: 5 } as const;
export const MAX_SCORE = 100;

/**
 * Activity a statement writes itself, so it cannot see it yet: one occurrence of `kind` (a term of
 * `SCORE_TERMS`) at `at`, by default `now()` (what the row's `created_at` defaults to).
 */
export interface PendingActivity {
  kind: string;
  at?: SQL;
}

/**
 * A contact's score (an SQL scalar, int): its activity gathered from every term's rows, the capped
 * terms added up with the recency bonus. `pending` adds activity the same statement writes (a CTE's
 * insert is invisible to the rest of its statement): the finder scores the search it saves
 * (decision 0226). `contactId` may be SQL (a CTE's id).
 */
export function contactScoreSql(
  organizationId: string,
  contactId: string | SQL,
  pending: readonly PendingActivity[] = [],
): SQL {
  const termOf = (kind: string) => {
    const term = SCORE_TERMS.find((candidate) => candidate.kind === kind);
    if (!term) throw new Error(`no score term ${kind}`);
    return term;
  };
  const columns = (term: ScoreTerm) =>
    sql`${term.kind}::text AS kind, ${term.points}::int AS points, ${term.cap}::int AS cap`;
  const activity = [
    ...SCORE_TERMS.map(
      (term) => sql`SELECT ${columns(term)}, a.at FROM (${term.rows(organizationId, contactId)}) a`,
    ),
    ...pending.map((item) => sql`SELECT ${columns(termOf(item.kind))}, ${item.at ?? sql`now()`} AS at`),
  ];
  return sql`(SELECT least(${MAX_SCORE}::int, coalesce(sum(per_kind.points), 0) + CASE
            WHEN max(per_kind.last_at) >= now() - interval '7 days' THEN ${RECENCY_BONUS.within7Days}::int
            WHEN max(per_kind.last_at) >= now() - interval '30 days' THEN ${RECENCY_BONUS.within30Days}::int
            ELSE 0 END)::int
      FROM (
        SELECT least(max(cap), count(*) * max(points)) AS points, max(at) AS last_at
        FROM (${sql.join(activity, sql` UNION ALL `)}) activity GROUP BY kind
      ) per_kind)`;
}

/**
 * One statement: gathers the contact's activity, adds up the capped terms and the recency bonus,
 * stores the score when it changed (no dead row otherwise) and returns it. null when the contact
 * is not in the organization. A new score is a change of the contact: updatedAt moves, so a cursor
 * walk (incremental sync) lists the contact again.
 */
export async function updateContactScore(
  tx: Tx,
  organizationId: string,
  contactId: string,
): Promise<number | null> {
  const rows = await queryRows<{ score: number | string }>(
    tx,
    sql`WITH computed AS (SELECT ${contactScoreSql(organizationId, contactId)} AS score),
      stored AS (
        UPDATE contacts SET score = computed.score, updated_at = now() FROM computed
        WHERE contacts.organization_id = ${organizationId} AND contacts.id = ${contactId}
          AND contacts.score <> computed.score
        RETURNING contacts.id
      )
      SELECT computed.score FROM computed
      WHERE EXISTS (SELECT 1 FROM contacts WHERE organization_id = ${organizationId} AND id = ${contactId})`,
  );
  return rows[0] ? Number(rows[0].score) : null;
}
