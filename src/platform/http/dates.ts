import { Type } from '@fastify/type-provider-typebox';
import { Errors } from '../errors/errors.ts';

/** A calendar date (midnight UTC) or a date-time with its offset: the shape of every date filter. */
export const DATE_OR_DATE_TIME =
  '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$';

/** A string field holding a date or a date-time (DATE_OR_DATE_TIME). */
export const DateOrDateTime = (description: string) =>
  Type.String({ pattern: DATE_OR_DATE_TIME, maxLength: 40, description });

/**
 * The instant a date or date-time names: a calendar date (YYYY-MM-DD) is its midnight UTC, a
 * date-time its own instant. A 400 naming `field` for an impossible date (2027-02-30), which `Date`
 * would silently roll over into March.
 */
export function parseDateOrDateTime(value: string, field: string): Date {
  const day = value.slice(0, 10);
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const midnight = new Date(Date.UTC(year, month - 1, date));
  const instant = value.length === 10 ? midnight : new Date(value);
  if (
    !/^\d{4}-\d{2}-\d{2}/.test(value) ||
    Number.isNaN(midnight.getTime()) ||
    midnight.toISOString().slice(0, 10) !== day ||
    Number.isNaN(instant.getTime())
  ) {
    throw Errors.invalidField(field, 'is not a valid date (YYYY-MM-DD) or date-time');
  }
  return instant;
}

const DAY_MS = 86_400_000;

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function parseDay(value: string, field: string): number {
  const ms = Date.parse(`${value}T00:00:00Z`);
  // Date.parse rolls 2024-02-30 over to March: a round trip catches impossible dates.
  if (Number.isNaN(ms) || dayOf(ms) !== value)
    throw Errors.invalidField(field, 'must be a date (YYYY-MM-DD)');
  return ms;
}

/**
 * The UTC days `query.from`..`query.to` (YYYY-MM-DD, both included) of a report: by default the last
 * `defaultDays` up to today; a 400 naming `query.from` or `query.to` for an impossible date, a reversed
 * range or one longer than `maxDays`.
 */
export function dayRange(
  query: { from?: string; to?: string },
  limits: { defaultDays: number; maxDays: number },
  now = Date.now(),
): { from: string; to: string } {
  const toMs =
    query.to === undefined ? Date.parse(`${dayOf(now)}T00:00:00Z`) : parseDay(query.to, 'query.to');
  const fromMs =
    query.from === undefined ? toMs - (limits.defaultDays - 1) * DAY_MS : parseDay(query.from, 'query.from');
  if (fromMs > toMs) throw Errors.invalidField('query.from', 'must be on or before query.to');
  if ((toMs - fromMs) / DAY_MS + 1 > limits.maxDays)
    throw Errors.invalidField('query.from', `must be at most ${limits.maxDays} days before query.to`);
  return { from: dayOf(fromMs), to: dayOf(toMs) };
}
