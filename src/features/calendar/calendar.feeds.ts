// Appointments in the agents' own calendars (issue 26 item 4): one appointment as an .ics file, and a
// per-agent subscription URL (unguessable, rotatable) that Google, Outlook and Apple calendars poll.
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../db/database.ts';
import type { CalendarFeedRow } from '../../db/schema.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import type { TokenCredentialResolver } from '../../platform/auth/credentials.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import { isId } from '../../platform/ids/ids.ts';
import { findAgentProfile } from '../agents/index.ts';
import { calendarOf } from './calendar.ics.ts';
import * as store from './calendar.store.ts';

const DAY_MS = 86_400_000;
/** What a subscription shows: the last 30 days (a cancelled visit stays visible as cancelled) and the next year. */
const FEED_PAST_DAYS = 30;
const FEED_FUTURE_DAYS = 366;
/** At most this many appointments in one feed (a busy agent has a few a day). */
export const FEED_LIMIT = 2000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export interface CalendarFeed {
  agentId: string;
  tokenPrefix: string;
  createdAt: string;
}

const feedOf = (row: CalendarFeedRow): CalendarFeed => ({
  agentId: row.agentId,
  tokenPrefix: row.tokenPrefix,
  createdAt: row.createdAt.toISOString(),
});

/** The calendar file URL of a token. */
export const feedUrl = (origin: string, token: string) => `${origin}/calendars/${token}.ics`;

/** One appointment as an iCalendar file; 404 as GET /v1/appointments/{id}. */
export async function appointmentIcs(db: Database, caller: Caller, id: string) {
  const row = isId(id, 'apt')
    ? await readAs(db, caller, (tx) => store.findCalendarAppointment(tx, caller.organization.id, id))
    : null;
  if (!row) throw Errors.notFound('Appointment', id);
  return calendarOf('Appointment', [row]);
}

/** The organization's agents with a calendar subscription URL (its token's first characters only). */
export async function listCalendarFeeds(db: Database, caller: Caller): Promise<CalendarFeed[]> {
  return (await readAs(db, caller, (tx) => store.listFeeds(tx, caller.organization.id))).map(feedOf);
}

/**
 * Makes (or replaces) an agent's subscription URL; the token is answered only now. The previous URL
 * stops working at once. 404 for an agent not the organization's.
 */
export async function rotateCalendarFeed(
  db: Database,
  caller: Caller,
  agentId: string,
): Promise<{ token: string; feed: CalendarFeed }> {
  const organizationId = caller.organization.id;
  // 32 random bytes, base64url: 256 bits, nothing to guess.
  const token = randomBytes(32).toString('base64url');
  const row = await writeAs(db, caller, async (tx) => {
    if (!(await findAgentProfile(tx, organizationId, agentId))) throw Errors.notFound('Agent', agentId);
    return store.setFeed(tx, organizationId, agentId, { hash: hashOf(token), prefix: token.slice(0, 6) });
  });
  return { token, feed: feedOf(row as CalendarFeedRow) };
}

/** Turns an agent's subscription URL off (404 from then on); 404 when there was none. */
export async function deleteCalendarFeed(db: Database, caller: Caller, agentId: string): Promise<void> {
  const organizationId = caller.organization.id;
  const removed = await writeAs(db, caller, async (tx) => {
    const feeds = await store.listFeeds(tx, organizationId);
    if (!feeds.some((feed) => feed.agentId === agentId)) return false;
    await store.setFeed(tx, organizationId, agentId, null);
    return true;
  });
  if (!removed) throw Errors.notFound('Calendar feed of agent', agentId);
}

/** The calendar subscription URL as a credential (manifest `credentials`): its agent's appointments. */
export function calendarCredential(db: Database): TokenCredentialResolver {
  return {
    kind: 'calendar',
    scopes: ['appointments:read'],
    // Per URL: a person or a calendar client polling, never a crawler's pace.
    limits: { requestsPerMinute: 60, writesPerMinute: 0 },
    actor: { kind: 'API', userId: null },
    notFound: () => Errors.notFound('Calendar', 'this URL'),
    async resolve(token) {
      const feed = TOKEN.test(token)
        ? await db.systemTx((tx) => store.findFeedByHash(tx, hashOf(token)))
        : null;
      return feed && { organizationId: feed.organizationId, id: feed.agentId, agentId: feed.agentId };
    },
  };
}

/**
 * An agent's subscription calendar (the caller of its URL, its agent checked active at the edge):
 * their appointments of the last 30 days and the next year (cancelled ones as CANCELLED), at most
 * FEED_LIMIT.
 */
export async function subscriptionIcs(db: Database, caller: Caller, now = Date.now()): Promise<string> {
  const organizationId = caller.organization.id;
  const agentId = caller.agentId;
  if (agentId === null) throw Errors.notFound('Calendar', 'this URL');
  return readAs(db, caller, async (tx) => {
    const agent = await findAgentProfile(tx, organizationId, agentId);
    if (!agent) throw Errors.notFound('Calendar', 'this URL');
    const rows = await store.agentCalendar(tx, organizationId, agentId, {
      from: new Date(now - FEED_PAST_DAYS * DAY_MS),
      to: new Date(now + FEED_FUTURE_DAYS * DAY_MS),
      limit: FEED_LIMIT,
    });
    return calendarOf(`Appointments of ${agent.fullName}`, rows);
  });
}
