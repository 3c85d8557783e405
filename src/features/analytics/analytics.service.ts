import { sql, type SQL } from 'drizzle-orm';
import type { Database, Tx } from '../../db/database.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { isId } from '../../platform/ids/ids.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import { requirePortalProperty } from '../properties/index.ts';
import {
  ANALYTICS_EVENT_TYPES,
  type AnalyticsEventType,
  type AnalyticsReport,
  type AnalyticsReportQuery,
  type RecordAnalyticsEventBody,
} from './analytics.schema.ts';
import * as store from './analytics.store.ts';
import type { AnalyticsWriter } from './analytics.writer.ts';
import { dayRange } from '../../platform/http/dates.ts';

/**
 * Published properties seen recently, per process: a page view of a property is the hottest
 * write of the portal, and the same few ids come back again and again. Only hits are kept, for
 * a short time: a property published a second ago is accepted at once (misses always ask the
 * database), one unpublished is still accepted for up to `ttlMs` (harmless for counts).
 */
export class KnownProperties {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 10_000,
  ) {}

  has(organizationId: string, propertyId: string, now = Date.now()): boolean {
    const key = `${organizationId}:${propertyId}`;
    const expiresAt = this.seen.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt > now) return true;
    this.seen.delete(key);
    return false;
  }

  add(organizationId: string, propertyId: string, now = Date.now()): void {
    // Oldest insertion first (Map order): a full cache forgets the entry closest to expiry.
    if (this.seen.size >= this.maxEntries) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(`${organizationId}:${propertyId}`, now + this.ttlMs);
  }
}

const NOT_A_PORTAL_PROPERTY = "does not name a property published on this agency's portal";

export interface AnalyticsDeps {
  db: Database;
  writer: AnalyticsWriter;
  knownProperties: KnownProperties;
}

/**
 * Checks a portal event (400 naming body.propertyId when it is not a property published by this
 * agency) and hands it to the batch writer; it is stored shortly after, not before this returns.
 */
export async function acceptEvent(
  deps: AnalyticsDeps,
  caller: Caller,
  body: RecordAnalyticsEventBody,
): Promise<void> {
  const organizationId = caller.organization.id;
  const propertyId = body.propertyId ?? null;
  if (propertyId !== null && !deps.knownProperties.has(organizationId, propertyId)) {
    // A malformed id is refused without opening a transaction (same answer as an unknown one).
    if (!isId(propertyId, 'prop')) throw Errors.invalidField('body.propertyId', NOT_A_PORTAL_PROPERTY);
    await writeAs(deps.db, caller, (tx) => requirePortalProperty(tx, organizationId, propertyId));
    deps.knownProperties.add(organizationId, propertyId);
  }
  deps.writer.enqueue({
    organizationId,
    type: body.type,
    propertyId,
    referrer: body.referrer ?? null,
    occurredAt: new Date(),
  });
}

/**
 * Records one analytics event synchronously inside the caller's tenant transaction (raw row and
 * daily count), for features whose own write is the event (a lead form records LEAD_FORM), so
 * the count commits or rolls back with it. The caller has already checked `propertyId`.
 */
export async function recordAnalyticsEventInTx(
  tx: Tx,
  organizationId: string,
  event: { type: AnalyticsEventType; propertyId?: string | null; referrer?: string | null },
): Promise<void> {
  const inserted = await store.appendEvents(tx, [
    {
      organizationId,
      type: event.type,
      propertyId: event.propertyId ?? null,
      referrer: event.referrer ?? null,
      occurredAt: new Date(),
    },
  ]);
  // Only a transaction of another tenant hides the organization (RLS): a caller's bug, not input.
  if (inserted !== 1) throw new Error(`analytics event of ${organizationId} outside its tenant transaction`);
}

/**
 * `recordAnalyticsEventInTx` as CTEs of the caller's own statement, for a feature that does its
 * whole write in one statement (the finder, decision 0226): the same rows, nothing written unless
 * `when` holds. `inserted` names the CTE with one row per event written: the caller checks there
 * is exactly one, as `recordAnalyticsEventInTx` does.
 */
export function recordAnalyticsEventSql(
  organizationId: string,
  event: { type: AnalyticsEventType; propertyId?: string | null; referrer?: string | null },
  options: { when?: SQL } = {},
): { ctes: SQL; inserted: SQL } {
  const row = {
    organizationId,
    type: event.type,
    propertyId: event.propertyId ?? null,
    referrer: event.referrer ?? null,
    occurredAt: new Date(),
  };
  return {
    ctes: store.appendEventsSql([row], { prefix: 'analytics_', ...options }),
    inserted: sql.raw('analytics_inserted'),
  };
}

/** The longest range one report covers: a year, leap day included. */
export const MAX_REPORT_DAYS = 366;
/** Default range: the last 30 days, today included. */
const DEFAULT_REPORT_DAYS = 30;
const TOP_PROPERTIES = 50;

/**
 * Daily aggregates of the caller's organization for its dashboard: totals per type, counts per UTC day
 * and type, and the top properties; 400 for a reversed or too long range.
 */
export async function getAnalyticsReport(
  db: Database,
  caller: Caller,
  query: AnalyticsReportQuery,
  now = Date.now(),
): Promise<AnalyticsReport> {
  const organizationId = caller.organization.id;
  const range = dayRange(query, { defaultDays: DEFAULT_REPORT_DAYS, maxDays: MAX_REPORT_DAYS }, now);
  const filter = { ...range, propertyId: query.propertyId, type: query.type };
  const { byDay, byProperty } = await readAs(db, caller, async (tx) => ({
    byDay: await store.sumDailyByDay(tx, organizationId, filter),
    byProperty: await store.sumDailyByProperty(tx, organizationId, filter, TOP_PROPERTIES),
  }));

  const totals = Object.fromEntries(ANALYTICS_EVENT_TYPES.map((type) => [type, 0])) as Record<
    AnalyticsEventType,
    number
  >;
  let total = 0;
  for (const row of byDay) {
    // Only known types are ever written; the guard keeps a stray row from breaking the response.
    if (row.type in totals) totals[row.type as AnalyticsEventType] += row.count;
    total += row.count;
  }
  return {
    from: filter.from,
    to: filter.to,
    propertyId: query.propertyId ?? null,
    type: query.type ?? null,
    total,
    totals,
    byDay: byDay as AnalyticsReport['byDay'],
    byProperty: byProperty as AnalyticsReport['byProperty'],
  };
}
