import type { Database } from '../../db/database.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { envelopeOf } from '../../platform/events/envelope.ts';
import { parseDateOrDateTime } from '../../platform/http/dates.ts';
import { purgeOlderThan } from '../../platform/jobs/purge.ts';
import { readAs } from '../../platform/tenancy/caller-tx.ts';
import { EVENT_LOG_DEFAULT_PAGE_SIZE, type ListEventLogQuery } from './event-log.schema.ts';
import * as store from './event-log.store.ts';

/** The worker deletes expired events this many at a time (one short transaction each). */
const PURGE_BATCH = 1_000;

function typeFilter(patterns: readonly string[] | undefined): { types: string[]; objects: string[] } {
  if (!patterns || patterns.includes('*')) return { types: [], objects: [] };
  const objects = patterns.filter((p) => p.endsWith('.*')).map((p) => p.slice(0, -2));
  return { types: patterns.filter((p) => !p.endsWith('.*')), objects };
}

/**
 * GET /v1/event-log: the organization's events in `sequence` order. The key's organization decides
 * the mode: a test key reads the test twin's log, a live key the live one.
 */
export async function listEventLog(db: Database, caller: Caller, query: ListEventLogQuery) {
  const pageSize = query.pageSize ?? EVENT_LOG_DEFAULT_PAGE_SIZE;
  const order = query.order ?? 'asc';
  const organizationId = caller.organization.id;
  const filter: store.EventLogFilter = {
    ...typeFilter(query.type),
    after: query.after,
    before: query.before,
    createdFrom: query.createdAfter
      ? parseDateOrDateTime(query.createdAfter, 'query.createdAfter')
      : undefined,
    createdTo: query.createdBefore
      ? parseDateOrDateTime(query.createdBefore, 'query.createdBefore')
      : undefined,
    order,
    limit: pageSize + 1,
  };
  const rows = await readAs(db, caller, (tx) => store.listEvents(tx, organizationId, filter));
  const hasMore = rows.length > pageSize;
  const page = rows.slice(0, pageSize);
  const last = page.at(-1)?.sequence;
  // asc: always a cursor to poll from (the last one read, else where this read started); desc: the next page.
  const nextCursor = order === 'asc' ? (last ?? query.after ?? 0) : hasMore ? (last ?? null) : null;
  return { data: page.map(envelopeOf), meta: { pageSize, hasMore, nextCursor } };
}

/** GET /v1/event-log/{id}: one committed event of the key's organization, else 404. */
export async function getLoggedEvent(db: Database, caller: Caller, id: string) {
  const organizationId = caller.organization.id;
  const event = await readAs(db, caller, (tx) => store.findEvent(tx, organizationId, id));
  if (!event) throw Errors.notFound('Event', id);
  return { data: envelopeOf(event) };
}

/** Deletes the events older than the retention, in short batches; returns how many went. */
export async function purgeEventLog(
  db: Database,
  retentionDays: number,
  options: { now?: Date; batchSize?: number } = {},
): Promise<number> {
  return purgeOlderThan(db, { table: 'events', column: 'created_at' }, retentionDays, {
    now: options.now,
    batchSize: options.batchSize ?? PURGE_BATCH,
  });
}
