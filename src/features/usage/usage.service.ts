import type { Database, Tx } from '../../db/database.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { eachItem, itemErrorOf, itemPath, validateItem } from '../../platform/http/batch.ts';
import { isId } from '../../platform/ids/ids.ts';
import { findContactInTx, recomputeContactScore } from '../contacts/index.ts';
import {
  RecordUsageEventBodySchema,
  USAGE_PROPS_MAX_BYTES,
  type ContactUsage,
  type ContactUsageQuery,
  type RecordUsageEventBody,
  type UsageEventBatchBody,
  type UsageEventBatchResult,
} from './usage.schema.ts';
import * as store from './usage.store.ts';
import { dayRange } from '../../platform/http/dates.ts';
import { purgeOlderThan } from '../../platform/jobs/purge.ts';

const DAY_MS = 86_400_000;
/** occurredAt may run this far ahead of our clock (client clocks and time zone slips), no further. */
export const OCCURRED_AT_FUTURE_TOLERANCE_MS = DAY_MS;
/** Earliest occurredAt accepted: catches zero-value timestamps (`0001-01-01T00:00:00Z`) from clients. */
export const OCCURRED_AT_EARLIEST = '2000-01-01T00:00:00.000Z';

function optional(value: string | undefined): string | null {
  return value === undefined ? null : value;
}

function occurredAtOf(value: string | undefined, now: Date, path: string): Date {
  if (value === undefined) return now;
  const at = new Date(value);
  const field = `${path}.occurredAt`;
  // The schema checked the format; a leap second or similar the Date type cannot hold still lands here.
  if (Number.isNaN(at.getTime())) throw Errors.invalidField(field, 'must be a date-time');
  if (at.getTime() > now.getTime() + OCCURRED_AT_FUTURE_TOLERANCE_MS)
    throw Errors.invalidField(field, 'must not be more than 24 hours in the future');
  if (at.getTime() < Date.parse(OCCURRED_AT_EARLIEST))
    throw Errors.invalidField(field, `must not be before ${OCCURRED_AT_EARLIEST}`);
  return at;
}

/** A usage event checked beyond its schema and ready to store; `identity` null when it can name no one. */
interface PreparedUsageEvent {
  identity: store.UsageOwnerIdentity | null;
  event: store.NewUsageEvent;
}

/**
 * Checks what the schema cannot (`props` size, the `occurredAt` window; a 400 names the field under
 * `path`) and shapes the event and its owner's identifiers for the store.
 */
function prepareUsageEvent(body: RecordUsageEventBody, now: Date, path: string): PreparedUsageEvent {
  // The schema refused a blank name and a body that names no owner.
  const props = body.props === undefined ? null : (body.props as Record<string, unknown>);
  if (props !== null && Buffer.byteLength(JSON.stringify(props), 'utf8') > USAGE_PROPS_MAX_BYTES)
    throw Errors.invalidField(`${path}.props`, `must be at most ${USAGE_PROPS_MAX_BYTES} bytes as JSON`);
  const event = {
    name: body.name.trim(),
    label: optional(body.label),
    props,
    companyId: optional(body.companyId),
    actorLabel: optional(body.actorLabel),
    occurredAt: occurredAtOf(body.occurredAt, now, path),
  };
  const identity: store.UsageOwnerIdentity = {
    // Not an id of ours: no contact can have it, so skip the probe (another identifier may still match).
    contactId: body.contactId !== undefined && isId(body.contactId, 'ct') ? body.contactId : undefined,
    externalId: body.externalId,
    emailKey: body.email?.trim().toLowerCase(),
  };
  const namesSomeone = Object.values(identity).some((value) => value !== undefined);
  return { identity: namesSomeone ? identity : null, event };
}

/**
 * Stores prepared events inside the caller's transaction: each appended to its owner's raw events and
 * daily aggregate (an event whose owner matches no contact stores nothing), then each owner's score
 * recomputed once. Returns each event's owner id, or null.
 */
async function appendUsageEvents(
  tx: Tx,
  organizationId: string,
  events: readonly PreparedUsageEvent[],
): Promise<(string | null)[]> {
  const owners: (string | null)[] = [];
  for (const { identity, event } of events) {
    owners.push(identity === null ? null : await store.appendUsageEvent(tx, organizationId, identity, event));
  }
  for (const contactId of new Set(owners)) {
    if (contactId !== null) await recomputeContactScore(tx, organizationId, contactId);
  }
  return owners;
}

/**
 * Records a product usage event for the contact it names (by contactId, then externalId, then
 * email, case-insensitive): raw row, daily aggregate and score in one tenant transaction. A
 * request that names nobody in the organization is accepted and stores nothing (SPEC: 200
 * even when the contact is not found). Returns the owner's id, or null.
 */
export async function recordUsageEvent(
  db: Database,
  caller: Caller,
  body: RecordUsageEventBody,
  now = new Date(),
): Promise<string | null> {
  const prepared = prepareUsageEvent(body, now, 'body');
  if (prepared.identity === null) return null;
  const organizationId = caller.organization.id;
  const [owner] = await writeAs(db, caller, (tx) => appendUsageEvents(tx, organizationId, [prepared]));
  return owner ?? null;
}

/**
 * Records up to 500 usage events (POST /v1/usage/events/batch). Each item is checked as the single
 * route checks its body, fields named `body.events[i].…`: a failed one is rejected alone. The
 * accepted ones are stored in ONE transaction (all of them or, on a server failure, none: a retry
 * cannot count an event twice), with the single route's owner matching; an accepted event that names
 * no contact stores nothing, as the single route's 200 does.
 */
export async function recordUsageBatch(
  db: Database,
  caller: Caller,
  body: UsageEventBatchBody,
  now = new Date(),
): Promise<UsageEventBatchResult> {
  const outcomes = await eachItem(body.events, async (raw, index) =>
    prepareUsageEvent(
      validateItem(RecordUsageEventBodySchema, raw, { field: 'events', index }),
      now,
      itemPath('events', index),
    ),
  );
  const accepted = outcomes.flatMap((outcome) => (outcome.error ? [] : [outcome.value]));
  const organizationId = caller.organization.id;
  if (accepted.some((prepared) => prepared.identity !== null)) {
    await writeAs(db, caller, (tx) => appendUsageEvents(tx, organizationId, accepted));
  }
  return {
    accepted: accepted.length,
    rejected: outcomes.flatMap((outcome) =>
      outcome.error ? [{ index: outcome.index, error: itemErrorOf(outcome.error) }] : [],
    ),
  };
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
  caller: Caller,
  contactId: string,
  query: ContactUsageQuery,
  now = Date.now(),
): Promise<ContactUsage> {
  const range = dayRange(query, { defaultDays: DEFAULT_USAGE_DAYS, maxDays: MAX_USAGE_DAYS }, now);
  if (!isId(contactId, 'ct')) throw Errors.notFound('Contact', contactId);

  const organizationId = caller.organization.id;
  const rows = await readAs(db, caller, async (tx) => {
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
  return purgeOlderThan(db, { table: 'usage_events', column: 'created_at' }, retentionDays, {
    now: options.now,
    batchSize: options.batchSize ?? USAGE_PURGE_BATCH,
  });
}
