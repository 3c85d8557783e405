import { and, between, desc, eq, gte, inArray, lte, sql, type SQL } from 'drizzle-orm';
import { countMatches, type Tx } from '../../db/database.ts';
import { keysetConditions, keysetOrder, keysetPosition, type Keyed, type Keyset } from '../../db/keyset.ts';
import { agents, properties, type AgentRow, type PropertyRow } from '../../db/schema.ts';
import { containsAllWords } from '../../platform/text/search-sql.ts';
import { withinRadius } from './properties.geo.ts';

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
  // Only where the agency shows price drops. The portal reads in its tenant's transaction: the setting is
  // read once per statement (an uncorrelated subquery, an InitPlan), not once per listing row.
  previousPrice: sql<number | null>`CASE WHEN (SELECT o.show_price_drops FROM organizations AS o
      WHERE o.id = current_setting('app.organization_id', true)) THEN ${properties.previousPrice} END`
    .mapWith(Number)
    .as('previous_price'),
  city: properties.city,
  neighborhood: properties.neighborhood,
  // What of these the portal shows is decided by address_visibility (properties.location.ts).
  address: properties.address,
  zipCode: properties.zipCode,
  addressVisibility: properties.addressVisibility,
  portalLatitude: properties.portalLatitude,
  portalLongitude: properties.portalLongitude,
  bedrooms: properties.bedrooms,
  bathrooms: properties.bathrooms,
  area: properties.area,
  amenities: properties.amenities,
  photos: properties.photos,
  translations: properties.translations,
  // The language of title and description (read once per statement, like previousPrice's setting).
  defaultLanguage: sql<string>`(SELECT o.default_language FROM organizations AS o
      WHERE o.id = current_setting('app.organization_id', true))`.as('default_language'),
  createdAt: properties.createdAt,
  // What the portal and the feeds show last changed: not an internal edit (migration 0034).
  updatedAt: properties.publicUpdatedAt,
};

export type PortalPropertyRow = Pick<PropertyRow, Exclude<keyof typeof portalColumns, 'defaultLanguage'>> & {
  /** Absent from back-office rows: their views show no language. */
  defaultLanguage?: string;
};

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
  options: { portal: boolean; lock?: boolean },
): Promise<PropertyWithAgent | null> {
  const conditions = [eq(properties.organizationId, organizationId), eq(properties.id, id)];
  if (options.portal) conditions.push(portalVisible);
  const query = withAgent(tx)
    .where(and(...conditions))
    .limit(1);
  // A change locks the row it reads: its status move and history are judged against the committed state.
  const rows = await (options.lock ? query.for('update', { of: properties }) : query);
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

/** The back office's and the listing API's filters (every status; AND). */
export interface AdminPropertyFilter {
  status?: PropertyRow['status'];
  statuses?: readonly PropertyRow['status'][];
  publishedOnPortal?: boolean;
  featured?: boolean;
  agentId?: string;
  code?: string;
  q?: string;
  transactionType?: PropertyRow['transactionType'];
  type?: PropertyRow['type'];
  /** Folded: every word in the folded city. */
  city?: string;
  priceMin?: number;
  priceMax?: number;
  bedroomsMin?: number;
  /** Folded: every word in the folded neighborhood. */
  neighborhood?: string;
  bathroomsMin?: number;
  areaMin?: number;
  areaMax?: number;
  amenities?: readonly string[];
  /** On the exact coordinates (the agency's view). */
  bounds?: { south: number; west: number; north: number; east: number };
  near?: { latitude: number; longitude: number; radiusKm: number };
}

function listingConditions(organizationId: string, filter: AdminPropertyFilter): SQL[] {
  const c: SQL[] = [eq(properties.organizationId, organizationId)];
  if (filter.status !== undefined) c.push(eq(properties.status, filter.status));
  if (filter.statuses !== undefined) c.push(inArray(properties.status, [...filter.statuses]));
  if (filter.publishedOnPortal !== undefined)
    c.push(eq(properties.publishedOnPortal, filter.publishedOnPortal));
  if (filter.featured !== undefined) c.push(eq(properties.featured, filter.featured));
  if (filter.agentId !== undefined) c.push(eq(properties.agentId, filter.agentId));
  if (filter.code !== undefined) c.push(eq(properties.code, filter.code));
  if (filter.q !== undefined) c.push(containsAllWords(properties.searchText, filter.q));
  if (filter.transactionType !== undefined) c.push(eq(properties.transactionType, filter.transactionType));
  if (filter.type !== undefined) c.push(eq(properties.type, filter.type));
  if (filter.city !== undefined) c.push(containsAllWords(properties.searchCity, filter.city));
  if (filter.priceMin !== undefined) c.push(gte(properties.priceValue, filter.priceMin));
  if (filter.priceMax !== undefined) c.push(lte(properties.priceValue, filter.priceMax));
  if (filter.bedroomsMin !== undefined) c.push(gte(properties.bedrooms, filter.bedroomsMin));
  if (filter.neighborhood !== undefined)
    c.push(containsAllWords(properties.searchNeighborhood, filter.neighborhood));
  if (filter.bathroomsMin !== undefined) c.push(gte(properties.bathrooms, filter.bathroomsMin));
  if (filter.areaMin !== undefined) c.push(gte(properties.areaValue, filter.areaMin));
  if (filter.areaMax !== undefined) c.push(lte(properties.areaValue, filter.areaMax));
  if (filter.amenities !== undefined && filter.amenities.length > 0)
    c.push(sql`${properties.amenities} @> ${sql.param([...filter.amenities])}::text[]`);
  if (filter.bounds !== undefined) {
    const b = filter.bounds;
    c.push(between(properties.latitude, b.south, b.north), between(properties.longitude, b.west, b.east));
  }
  // The exact coordinates: the agency's view.
  if (filter.near !== undefined) c.push(...withinRadius(properties, filter.near));
  return c;
}

/** One page of the organization's properties, newest first, and the (bounded) count of the matches. */
export async function listProperties(
  tx: Tx,
  organizationId: string,
  filter: AdminPropertyFilter,
  page: { limit: number; offset: number },
): Promise<{ items: PropertyWithAgent[]; total: number }> {
  const where = and(...listingConditions(organizationId, filter));
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

/** A cursor page: the matching properties after the keyset's position, oldest change first. */
export async function listPropertiesByUpdatedAt(
  tx: Tx,
  organizationId: string,
  filter: AdminPropertyFilter,
  keyset: Keyset,
): Promise<Keyed<PropertyWithAgent>[]> {
  const rows = await tx
    .select({ property: properties, agent: agentCard, position: keysetPosition(properties.updatedAt) })
    .from(properties)
    .leftJoin(
      agents,
      and(eq(agents.organizationId, properties.organizationId), eq(agents.id, properties.agentId)),
    )
    .where(and(...listingConditions(organizationId, filter), ...keysetConditions(properties, keyset)))
    .orderBy(...keysetOrder(properties))
    .limit(keyset.limit);
  return rows.map(({ property, agent, position }) => ({
    row: { property, agent },
    key: { updatedAt: position, id: property.id },
  }));
}
