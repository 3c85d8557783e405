import { and, asc, count, eq, not, sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { agents, agentTimeHeld, appointments, type AgentRow } from '../../db/schema.ts';

export type NewAgent = typeof agents.$inferInsert;

/** Active, with a slug and booking settings (a JSON object, never JSON null): takes online bookings. */
export const bookableAgent = sql`(${agents.active} AND ${agents.bookingSlug} IS NOT NULL AND jsonb_typeof(${agents.booking}) = 'object')`;

// Names sort case-insensitively; the id breaks ties so pages never overlap.
const byName = [asc(sql`lower(${agents.firstName})`), asc(sql`lower(${agents.lastName})`), asc(agents.id)];

export async function insertAgent(tx: Tx, row: NewAgent): Promise<AgentRow | null> {
  // The only unique key besides the id is (organization, booking slug): a conflict is a taken slug.
  const rows = await tx.insert(agents).values(row).onConflictDoNothing().returning();
  return rows[0] ?? null;
}

export async function findAgentById(tx: Tx, organizationId: string, id: string): Promise<AgentRow | null> {
  const rows = await tx
    .select()
    .from(agents)
    .where(and(eq(agents.organizationId, organizationId), eq(agents.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

export async function findAgentBySlug(
  tx: Tx,
  organizationId: string,
  slug: string,
): Promise<AgentRow | null> {
  const rows = await tx
    .select()
    .from(agents)
    .where(and(eq(agents.organizationId, organizationId), eq(agents.bookingSlug, slug)))
    .limit(1);
  return rows[0] ?? null;
}

export async function updateAgent(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Partial<NewAgent>,
): Promise<AgentRow | null> {
  const rows = await tx
    .update(agents)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(agents.organizationId, organizationId), eq(agents.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function deleteAgent(tx: Tx, organizationId: string, id: string): Promise<AgentRow | null> {
  const rows = await tx
    .delete(agents)
    .where(and(eq(agents.organizationId, organizationId), eq(agents.id, id)))
    .returning();
  return rows[0] ?? null;
}

/** Appointments of the agent that still hold a slot and have not ended. */
export async function countUpcomingAppointments(
  tx: Tx,
  organizationId: string,
  agentId: string,
  now: Date,
): Promise<number> {
  const rows = await tx
    .select({ total: count() })
    .from(appointments)
    .where(and(...agentTimeHeld(organizationId, agentId, now, null)));
  return Number(rows[0]?.total ?? 0);
}

export interface AgentFilter {
  active?: boolean;
  bookable?: boolean;
}

/** One page of the agents `where` selects, by name, with their total. */
async function pageByName(
  tx: Tx,
  where: SQL | undefined,
  page: { limit: number; offset: number },
): Promise<{ items: AgentRow[]; total: number }> {
  const [items, totals] = await Promise.all([
    tx
      .select()
      .from(agents)
      .where(where)
      .orderBy(...byName)
      .limit(page.limit)
      .offset(page.offset),
    tx.select({ total: count() }).from(agents).where(where),
  ]);
  return { items, total: Number(totals[0]?.total ?? 0) };
}

export async function listAgents(
  tx: Tx,
  organizationId: string,
  filter: AgentFilter,
  page: { limit: number; offset: number },
): Promise<{ items: AgentRow[]; total: number }> {
  const conditions: SQL[] = [eq(agents.organizationId, organizationId)];
  if (filter.active !== undefined) conditions.push(eq(agents.active, filter.active));
  if (filter.bookable !== undefined) conditions.push(filter.bookable ? bookableAgent : not(bookableAgent));
  return pageByName(tx, and(...conditions), page);
}

/** Active agents shown on the portal, by name. */
export async function listPortalAgents(
  tx: Tx,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<{ items: AgentRow[]; total: number }> {
  return pageByName(
    tx,
    and(eq(agents.organizationId, organizationId), eq(agents.active, true), eq(agents.showOnPortal, true)),
    page,
  );
}

/** Every agent that takes online bookings, by name (an agency has a handful). */
export async function listBookableAgents(tx: Tx, organizationId: string): Promise<AgentRow[]> {
  return tx
    .select()
    .from(agents)
    .where(and(eq(agents.organizationId, organizationId), bookableAgent))
    .orderBy(...byName);
}
