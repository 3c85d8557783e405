import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import { countMatches, type Tx } from '../../db/database.ts';
import { agents, properties, type AgentRow, type PropertyRow } from '../../db/schema.ts';
import { containsAllWords } from '../../platform/text/search-sql.ts';

/** Visible on the portal: ACTIVE and published (the partial indexes' predicate). */
export const portalVisible = sql`${properties.status} = 'ACTIVE' AND ${properties.publishedOnPortal}`;

export interface PropertyRef {
  id: string;
  title: string;
  agentId: string | null;
  price: number;
  currency: string;
}

/** A published property's id, title, agent and price, or null (unknown, other tenant, unpublished). */
export async function findPortalPropertyRef(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<PropertyRef | null> {
  const rows = await tx
    .select({
      id: properties.id,
      title: properties.title,
      agentId: properties.agentId,
      price: properties.price,
      currency: properties.currency,
    })
    .from(properties)
    .where(and(eq(properties.organizationId, organizationId), eq(properties.id, id), portalVisible))
    .limit(1);
  return rows[0] ?? null;
}

export type NewProperty = typeof properties.$inferInsert;

/** A property row with its agent's public card (left join: agents are optional). */
export interface PropertyWithAgent {
  property: PropertyRow;
  agent: Pick<AgentRow, 'id' | 'firstName' | 'lastName' | 'phone' | 'email' | 'photoUrl'> | null;
}

export const agentCard = {
  id: agents.id,
  firstName: agents.firstName,
  lastName: agents.lastName,
  phone: agents.phone,
  email: agents.email,
  photoUrl: agents.photoUrl,
};

/** The columns the portal shows (no internal notes, custom fields, exact location or search columns). */
export const portalColumns = {
  id: properties.id,
  code: properties.code,
  title: properties.title,
  description: properties.description,
  transactionType: properties.transactionType,
  type: properties.type,
  status: properties.status,
  featured: properties.featured,
  price: properties.price,
  currency: properties.currency,
  city: properties.city,
  neighborhood: properties.neighborhood,
  address: properties.address,
  zipCode: properties.zipCode,
  approximateLocation: properties.approximateLocation,
  portalLatitude: properties.portalLatitude,
  portalLongitude: properties.portalLongitude,
  bedrooms: properties.bedrooms,
  bathrooms: properties.bathrooms,
  area: properties.area,
  amenities: properties.amenities,
  photos: properties.photos,
  createdAt: properties.createdAt,
  updatedAt: properties.updatedAt,
};

export type PortalPropertyRow = Pick<PropertyRow, keyof typeof portalColumns>;

/** A portal listing row with its agent's public card. */
export interface PortalPropertyWithAgent {
  property: PortalPropertyRow;
  agent: PropertyWithAgent['agent'];
}

function withAgent(tx: Tx) {
  return tx
    .select({ property: properties, agent: agentCard })
    .from(properties)
    .leftJoin(
      agents,
      and(eq(agents.organizationId, properties.organizationId), eq(agents.id, properties.agentId)),
    );
}

export async function findPropertyById(
  tx: Tx,
  organizationId: string,
  id: string,
  options: { portal: boolean },
): Promise<PropertyWithAgent | null> {
  const conditions = [eq(properties.organizationId, organizationId), eq(properties.id, id)];
  if (options.portal) conditions.push(portalVisible);
  const rows = await withAgent(tx)
    .where(and(...conditions))
    .limit(1);
  return rows[0] ?? null;
}

export async function insertProperty(tx: Tx, row: NewProperty): Promise<PropertyRow | null> {
  const rows = await tx.insert(properties).values(row).onConflictDoNothing().returning();
  return rows[0] ?? null;
}

export async function updateProperty(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Partial<NewProperty>,
): Promise<PropertyRow | null> {
  const rows = await tx
    .update(properties)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(properties.organizationId, organizationId), eq(properties.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function deleteProperty(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<PropertyRow | null> {
  const rows = await tx
    .delete(properties)
    .where(and(eq(properties.organizationId, organizationId), eq(properties.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function findPropertyByCode(
  tx: Tx,
  organizationId: string,
  code: string,
): Promise<PropertyRow | null> {
  const rows = await tx
    .select()
    .from(properties)
    .where(and(eq(properties.organizationId, organizationId), eq(properties.code, code)))
    .limit(1);
  return rows[0] ?? null;
}

export interface AdminPropertyFilter {
  status?: string;
  publishedOnPortal?: boolean;
  agentId?: string;
  code?: string;
  q?: string;
}

export async function listProperties(
  tx: Tx,
  organizationId: string,
  filter: AdminPropertyFilter,
  page: { limit: number; offset: number },
): Promise<{ items: PropertyWithAgent[]; total: number }> {
  const conditions: SQL[] = [eq(properties.organizationId, organizationId)];
  if (filter.status !== undefined) conditions.push(eq(properties.status, filter.status));
  if (filter.publishedOnPortal !== undefined)
    conditions.push(eq(properties.publishedOnPortal, filter.publishedOnPortal));
  if (filter.agentId !== undefined) conditions.push(eq(properties.agentId, filter.agentId));
  if (filter.code !== undefined) conditions.push(eq(properties.code, filter.code));
  if (filter.q !== undefined) conditions.push(containsAllWords(properties.searchText, filter.q));
  const where = and(...conditions);
  const [items, total] = await Promise.all([
    withAgent(tx)
      .where(where)
      .orderBy(desc(properties.createdAt), desc(properties.id))
      .limit(page.limit)
      .offset(page.offset),
    countMatches(tx, properties, where),
  ]);
  return { items, total };
}
