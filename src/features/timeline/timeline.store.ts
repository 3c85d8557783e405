import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import type { TimelineType } from './timeline.schema.ts';

interface Row {
  type: TimelineType;
  id: string;
  at: string | Date;
  data: Record<string, unknown> | string;
}

/**
 * One page of a contact's timeline, newest first: every source a UNION ALL branch over its own
 * contact index (notes, leads, visit requests, appointments, deals, deal moves, messages, usage_daily), each
 * branch limited to what the page can reach, so the merge never reads a source whole.
 */
export async function timelinePage(
  tx: Tx,
  organizationId: string,
  contactId: string,
  options: { limit: number; offset: number; messages: boolean },
): Promise<{ rows: Row[]; total: number }> {
  const reach = options.limit + options.offset;
  const own = (table: string) =>
    sql`${sql.identifier(table)}.organization_id = ${organizationId} AND ${sql.identifier(table)}.contact_id = ${contactId}`;
  const movesOwn = sql`c.organization_id = ${organizationId} AND d.organization_id = ${organizationId} AND d.contact_id = ${contactId}`;
  const branch = (query: SQL) => sql`(${query} ORDER BY at DESC, id DESC LIMIT ${reach})`;
  const branches: SQL[] = [
    branch(sql`SELECT 'NOTE' AS type, id, created_at AS at,
      jsonb_build_object('body', body, 'authorAgentId', author_agent_id) AS data FROM contact_notes WHERE ${own('contact_notes')}`),
    branch(sql`SELECT 'LEAD' AS type, id, created_at AS at,
      jsonb_build_object('propertyId', property_id, 'message', message, 'utmSource', utm ->> 'source',
        'outcome', outcome, 'matchedOn', matched_on) AS data FROM leads WHERE ${own('leads')}`),
    branch(sql`SELECT 'VISIT_REQUEST' AS type, id, created_at AS at,
      jsonb_build_object('propertyId', property_id, 'status', status, 'preferredDate', preferred_date,
        'preferredTime', preferred_time, 'appointmentId', appointment_id, 'declineReason', decline_reason,
        'decidedAt', to_char(decided_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) AS data
      FROM visit_requests WHERE ${own('visit_requests')}`),
    branch(sql`SELECT 'APPOINTMENT' AS type, id, created_at AS at,
      jsonb_build_object('agentId', agent_id, 'propertyId', property_id, 'type', type, 'status', status,
        'startsAt', to_char(starts_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) AS data FROM appointments WHERE ${own('appointments')}`),
    branch(sql`SELECT 'DEAL' AS type, id, created_at AS at,
      jsonb_build_object('title', title, 'status', status, 'stageId', stage_id, 'value', value::float8) AS data FROM deals WHERE ${own('deals')}`),
    // A deal's moves belong to the deal's contact now (a deal handed to another contact takes its history).
    branch(sql`SELECT 'DEAL_MOVE' AS type, c.id, c.created_at AS at,
      jsonb_build_object('dealId', c.deal_id, 'dealTitle', d.title, 'pipelineId', c.pipeline_id,
        'fromStageId', c.from_stage_id, 'fromStageName', c.from_stage_name, 'toStageId', c.to_stage_id,
        'toStageName', c.to_stage_name, 'status', c.status, 'lostReason', c.lost_reason,
        'automated', c.automated, 'actorKind', c.actor_kind) AS data
      FROM deal_stage_changes c JOIN deals d ON d.organization_id = c.organization_id AND d.id = c.deal_id
      WHERE ${movesOwn}`),
    branch(sql`SELECT 'USAGE' AS type, 'usage_' || day::text AS id, day::timestamp AT TIME ZONE 'UTC' AS at,
      jsonb_build_object('day', day::text, 'events', sum(count)::int) AS data FROM usage_daily WHERE ${own('usage_daily')} GROUP BY day`),
  ];
  if (options.messages)
    branches.push(
      branch(sql`SELECT 'MESSAGE' AS type, id, created_at AS at,
        jsonb_build_object('direction', direction, 'status', status, 'body', body) AS data FROM messages WHERE ${own('messages')}`),
    );
  const rows = await queryRows<Row>(
    tx,
    sql`WITH items AS (${sql.join(branches, sql` UNION ALL `)})
        SELECT type, id, at, data FROM items
        ORDER BY at DESC, id DESC LIMIT ${options.limit} OFFSET ${options.offset}`,
  );
  const total = await queryRows<{ n: string | number }>(
    tx,
    sql`SELECT (SELECT count(*) FROM contact_notes WHERE ${own('contact_notes')})
             + (SELECT count(*) AS data FROM leads WHERE ${own('leads')})
             + (SELECT count(*) FROM visit_requests WHERE ${own('visit_requests')})
             + (SELECT count(*) FROM appointments WHERE ${own('appointments')})
             + (SELECT count(*) FROM deals WHERE ${own('deals')})
             + (SELECT count(*) FROM deal_stage_changes c JOIN deals d ON d.organization_id = c.organization_id AND d.id = c.deal_id WHERE ${movesOwn})
             + (SELECT count(DISTINCT day) FROM usage_daily WHERE ${own('usage_daily')})
             ${options.messages ? sql`+ (SELECT count(*) FROM messages WHERE ${own('messages')})` : sql``} AS n`,
  );
  return {
    rows,
    total: Number(total[0]?.n ?? 0),
  };
}
