import type { Database } from '../../db/database.ts';
import type { RequestLogRow } from '../../db/schema.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { parseDateOrDateTime } from '../../platform/http/dates.ts';
import { countedPageMeta, pageMeta, pageRequest } from '../../platform/http/pagination.ts';
import { purgeOlderThan } from '../../platform/jobs/purge.ts';
import { loadOrganization } from '../organizations/index.ts';
import type { ListRequestLogsQuery, RequestLog } from './request-logs.schema.ts';
import * as store from './request-logs.store.ts';

const PURGE_BATCH = 5_000;

/** An organization whose lines a listing shows: a live one, or its test twin (`livemode: false`). */
export interface RequestLogOrganization {
  id: string;
  livemode: boolean;
}

function toRequestLog(row: RequestLogRow, livemode: boolean): RequestLog {
  return {
    id: row.id,
    at: row.at.toISOString(),
    requestId: row.requestId,
    keyId: row.keyId,
    keyPrefix: row.keyPrefix,
    method: row.method,
    path: row.path,
    operationId: row.operationId,
    mcpTool: row.mcpTool,
    status: row.status,
    errorCode: row.errorCode,
    errorMessage: row.errorMessage,
    latencyMs: row.latencyMs,
    ip: row.ip,
    livemode,
  };
}

function statusRange(status: string): { from: number; to: number } {
  if (status.endsWith('xx')) {
    const from = Number(status[0]) * 100;
    return { from, to: from + 99 };
  }
  return { from: Number(status), to: Number(status) };
}

/**
 * Request log lines of some organizations (a live one and its twin, for the admin API and the
 * console), newest first, filtered and paged. `since`/`until` out of order are a 400 naming `until`.
 */
export async function listRequestLogs(
  db: Database,
  organizations: readonly RequestLogOrganization[],
  query: ListRequestLogsQuery,
) {
  const since = query.since === undefined ? undefined : parseDateOrDateTime(query.since, 'query.since');
  const until = query.until === undefined ? undefined : parseDateOrDateTime(query.until, 'query.until');
  if (since && until && until.getTime() <= since.getTime())
    throw Errors.invalidField('query.until', 'must be after since');
  const shown = organizations.filter(
    (organization) => query.mode === undefined || organization.livemode === (query.mode === 'live'),
  );
  const page = pageRequest(query);
  if (shown.length === 0) return { data: [], meta: pageMeta(0, page) };
  const livemode = new Map(shown.map((organization) => [organization.id, organization.livemode]));
  const { items, total } = await db.systemTx((tx) =>
    store.listRequestLogs(
      tx,
      [...livemode.keys()],
      {
        status: query.status === undefined ? undefined : statusRange(query.status),
        keyId: query.keyId,
        pathPrefix: query.path,
        requestId: query.requestId,
        operationId: query.operationId,
        since,
        until,
      },
      page,
    ),
  );
  return {
    data: items.map((row) => toRequestLog(row, livemode.get(row.organizationId) ?? true)),
    meta: countedPageMeta(total, page, items.length),
  };
}

/**
 * The admin listing: an organization's lines; for a live organization, its test twin's too (a
 * twin's id lists only the twin's). 404 for an unknown organization.
 */
export async function listOrganizationRequestLogs(
  db: Database,
  organizationId: string,
  query: ListRequestLogsQuery,
) {
  const record = await loadOrganization({ db }, organizationId);
  const isTwin = record.row.liveOrganizationId !== null;
  const organizations: RequestLogOrganization[] = [{ id: record.row.id, livemode: !isTwin }];
  if (!isTwin && record.testOrganizationId)
    organizations.push({ id: record.testOrganizationId, livemode: false });
  return listRequestLogs(db, organizations, query);
}

/** Deletes the lines older than the retention, in short batches; returns how many went. */
export async function purgeRequestLogs(
  db: Database,
  retentionDays: number,
  options: { now?: Date; batchSize?: number } = {},
): Promise<number> {
  return purgeOlderThan(db, { table: 'request_logs', column: 'at' }, retentionDays, {
    now: options.now,
    batchSize: options.batchSize ?? PURGE_BATCH,
  });
}
