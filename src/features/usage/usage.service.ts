import type { Database } from '../../db/database.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { isId } from '../../platform/ids/ids.ts';
import { findContactInTx, recomputeContactScore } from '../contacts/index.ts';
import {
  USAGE_PROPS_MAX_BYTES,
  type ContactUsage,
  type ContactUsageQuery,
  type RecordUsageEventBody,
} from './usage.schema.ts';
import * as store from './usage.store.ts';
import { dayRange } from '../../platform/http/dates.ts';
import { deleteCreatedBefore, purgeInBatches, retentionCutoff } from '../../platform/jobs/purge.ts';

const DAY_MS = 86_400_000;
/** occurredAt may run this far ahead of our clock (client clocks and time zone slips), no further. */
export const OCCURRED_AT_FUTURE_TOLERANCE_MS = DAY_MS;
/** Earliest occurredAt accepted: catches zero-value timestamps (`0001-01-01T00:00:00Z`) from clients. */
export const OCCURRED_AT_EARLIEST = '2000-01-01T00:00:00.000Z';

function optional(value: string | undefined): string | null {
  return value === undefined ? null : value;
}

function occurredAtOf(value: string | undefined, now: Date): Date {
  if (value === undefined) return now;
  const at = new Date(value);
  // The schema checked the format; a leap second or similar the Date type cannot hold still lands here.
  if (Number.isNaN(at.getTime())) throw Errors.invalidField('body.occurredAt', 'must be a date-time');
  if (at.getTime() > now.getTime() + OCCURRED_AT_FUTURE_TOLERANCE_MS)
    throw Errors.invalidField('body.occurredAt', 'must not be more than 24 hours in the future');
  if (at.getTime() < Date.parse(OCCURRED_AT_EARLIEST))
    throw Errors.invalidField('body.occurredAt', `must not be before ${OCCURRED_AT_EARLIEST}`);
  return at;
}

/**
 * Records a product usage event for the contact it names (by contactId, then externalId, then
 * email, case-insensitive): raw row, daily aggregate and score in one tenant transaction. A
 * request that names nobody in the organization is accepted and stores nothing (SPEC: 200
 * even when the contact is not found). Returns the owner's id, or null.
 */
export async function recordUsageEvent(
  db: Database,
  principal: Principal,
  body: RecordUsageEventBody,
  now = new Date(),
): Promise<string | null> {
  // The schema refused a blank name and a body that names no owner.
  const name = body.name.trim();
  const props = body.props === undefined ? null : (body.props as Record<string, unknown>);
  if (props !== null && Buffer.byteLength(JSON.stringify(props), 'utf8') > USAGE_PROPS_MAX_BYTES)
    throw Errors.invalidField('body.props', `must be at most ${USAGE_PROPS_MAX_BYTES} bytes as JSON`);
  const occurredAt = occurredAtOf(body.occurredAt, now);

  const organizationId = principal.organization.id;
  const identity: store.UsageOwnerIdentity = {
    // Not an id of ours: no contact can have it, so skip the probe (another identifier may still match).
    contactId: body.contactId !== undefined && isId(body.contactId, 'ct') ? body.contactId : undefined,
    externalId: body.externalId,
    emailKey: body.email?.trim().toLowerCase(),
  };
  if (
    identity.contactId === undefined &&
    identity.externalId === undefined &&
    identity.emailKey === undefined
  )
    return null;

  return db.tenantTx(organizationId, async (tx) => {
    const contactId = await store.appendUsageEvent(tx, organizationId, identity, {
      name,
      label: optional(body.label),
      props,
      companyId: optional(body.companyId),
      actorLabel: optional(body.actorLabel),
      occurredAt,
    });
    if (contactId !== null) await recomputeContactScore(tx, organizationId, contactId);
    return contactId;
  });
}

/** The longest range one usage read covers: a year, leap day included. */
export const MAX_USAGE_DAYS = 366;
/** Default range: the last 30 days, today included. */
const DEFAULT_USAGE_DAYS = 30;

/**
 * A contact's usage aggregates over UTC days `from`..`to` (default the last 30 days, at most
 * 366): totals per name and counts per day and name. 404 for a contact outside the organization,
 * 400 for a reversed or too long range.
 */
export async function getContactUsage(
  db: Database,
  organizationId: string,
  contactId: string,
  query: ContactUsageQuery,
  now = Date.now(),
): Promise<ContactUsage> {
  const range = dayRange(query, { defaultDays: DEFAULT_USAGE_DAYS, maxDays: MAX_USAGE_DAYS }, now);
  if (!isId(contactId, 'ct')) throw Errors.notFound('Contact', contactId);

  const rows = await db.tenantTx(organizationId, async (tx) => {
    if ((await findContactInTx(tx, organizationId, contactId)) === null)
      throw Errors.notFound('Contact', contactId);
    return store.listUsageDaily(tx, organizationId, contactId, range);
  });

  const totals = new Map<string, { name: string; count: number; first: Date; last: Date }>();
  for (const row of rows) {
    const total = totals.get(row.name);
    if (!total) {
      totals.set(row.name, {
        name: row.name,
        count: row.count,
        first: row.firstOccurredAt,
        last: row.lastOccurredAt,
      });
      continue;
    }
    total.count += row.count;
    if (row.firstOccurredAt < total.first) total.first = row.firstOccurredAt;
    if (row.lastOccurredAt > total.last) total.last = row.lastOccurredAt;
  }
  return {
    contactId,
    from: range.from,
    to: range.to,
    totals: [...totals.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((total) => ({
        name: total.name,
        count: total.count,
        firstOccurredAt: total.first.toISOString(),
        lastOccurredAt: total.last.toISOString(),
      })),
    byDay: rows.map((row) => ({ date: row.date, name: row.name, count: row.count })),
  };
}

/** Raw events are deleted this many at a time: short transactions, bounded locks. */
export const USAGE_PURGE_BATCH = 10_000;

/**
 * Worker job: deletes raw usage events received more than `retentionDays` ago, in batches, across
 * tenants; the daily aggregates stay. Returns how many rows it deleted.
 */
export async function purgeUsageDetail(
  db: Database,
  retentionDays: number,
  options: { now?: Date; batchSize?: number } = {},
): Promise<number> {
  const before = retentionCutoff(retentionDays, options.now);
  return purgeInBatches(db, options.batchSize ?? USAGE_PURGE_BATCH, (tx, limit) =>
    deleteCreatedBefore(tx, 'usage_events', before, limit),
  );
}
