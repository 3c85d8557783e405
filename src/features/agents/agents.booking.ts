// Agents as booking sees them: the lookups of the booking pages, the visitors' self-service and the
// calendars (other features reach them through index.ts), and an agent's booking page and hours
// through v1 (/v1/agents/{id}/booking), which are the back office's reads and updates of those fields.
import type { Database, Tx } from '../../db/database.ts';
import type { AgentBookingSettings, AgentRow } from '../../db/schema.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { isId } from '../../platform/ids/ids.ts';
import type { AdminAgent, AgentBooking, UpdateAgentBody } from './agents.schema.ts';
import { fullName, getAgent, isBookable, updateAgent } from './agents.service.ts';
import * as store from './agents.store.ts';

/** An agent who takes online bookings, as the booking pages need them. */
export interface BookingAgent {
  id: string;
  slug: string;
  firstName: string;
  lastName: string;
  fullName: string;
  photoUrl: string | null;
  /** null: the page exists but booking is not set up. */
  booking: AgentBookingSettings | null;
}

function toBookingAgent(row: AgentRow): BookingAgent {
  return {
    id: row.id,
    slug: row.bookingSlug as string,
    firstName: row.firstName,
    lastName: row.lastName,
    fullName: fullName(row),
    photoUrl: row.photoUrl,
    booking: row.booking,
  };
}

/**
 * The active agent whose booking page is `slug`, inside the caller's transaction; null when no
 * active agent of the organization has it (other tenants' agents are invisible here).
 */
export async function findBookingAgent(
  tx: Tx,
  organizationId: string,
  slug: string,
): Promise<BookingAgent | null> {
  const row = await store.findAgentBySlug(tx, organizationId, slug);
  return row && row.active ? toBookingAgent(row) : null;
}

/**
 * The active agent `id` names, with its booking settings, inside the caller's transaction; null when
 * the id is malformed, unknown, another organization's or an inactive agent's.
 */
export async function findBookingAgentById(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<BookingAgent | null> {
  const row = isId(id, 'agt') ? await store.findAgentById(tx, organizationId, id) : null;
  return row && row.active ? toBookingAgent(row) : null;
}

/** The organization's agents that take online bookings, by name. */
export async function listBookingAgents(tx: Tx, organizationId: string): Promise<BookingAgent[]> {
  return (await store.listBookableAgents(tx, organizationId)).map(toBookingAgent);
}

/** An agent of any state as the booking's self-service and calendars show them. */
export interface AgentProfile {
  id: string;
  fullName: string;
  email: string | null;
  photoUrl: string | null;
  active: boolean;
  /** The booking page's slug while the agent takes online bookings, else null. */
  bookingSlug: string | null;
  booking: AgentBookingSettings | null;
}

/** The agent `id` names, active or not, inside the caller's transaction; null when unknown. */
export async function findAgentProfile(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<AgentProfile | null> {
  const row = isId(id, 'agt') ? await store.findAgentById(tx, organizationId, id) : null;
  if (!row) return null;
  return {
    id: row.id,
    fullName: fullName(row),
    email: row.email,
    photoUrl: row.photoUrl,
    active: row.active,
    bookingSlug: isBookable(row) ? row.bookingSlug : null,
    booking: row.booking,
  };
}

const bookingOf = (agent: AdminAgent): AgentBooking => ({
  agentId: agent.id,
  bookingSlug: agent.bookingSlug,
  booking: agent.booking,
  bookable: agent.bookable,
});

/** An agent's booking page and hours (v1, `appointments:read`); 404 for an agent not the organization's. */
export async function getAgentBooking(db: Database, caller: Caller, agentId: string): Promise<AgentBooking> {
  return bookingOf(await getAgent(db, caller, agentId));
}

/**
 * Changes an agent's booking page and hours through v1 (`appointments:write`): the back office's
 * update of those two fields, recorded as the caller's.
 */
export async function updateAgentBooking(
  db: Database,
  caller: Caller,
  agentId: string,
  body: Pick<UpdateAgentBody, 'booking' | 'bookingSlug'>,
): Promise<AgentBooking> {
  return bookingOf(await updateAgent(db, caller, agentId, body));
}
