import type { Database, Tx } from '../../db/database.ts';
import { databaseError, UNIQUE_VIOLATION } from '../../db/errors.ts';
import type { PropertyRow } from '../../db/schema.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { pageMeta, pageRequest } from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { fold } from '../../platform/text/fold.ts';
import { inTenantOrganization, type TenantOrganization } from '../admin/admin.service.ts';
import { PropertyCreated, PropertyDeleted, PropertyUpdated } from './properties.events.ts';
import {
  AMENITIES,
  amenityFlag,
  type AdminListPropertiesQuery,
  type AdminProperty,
  type Amenity,
  type CreatePropertyBody,
  type PortalFilters,
  type PortalListQuery,
  type PortalProperty,
  type PropertyStatus,
  type PropertyType,
  type TransactionType,
  type UpdatePropertyBody,
} from './properties.schema.ts';
import * as store from './properties.store.ts';
import { isAgentOf } from '../agents/agents.service.ts';

export type { PropertyRef } from './properties.store.ts';

/** Back-office changes are recorded with a SYSTEM actor (the operator). */
const OPERATOR: Actor = { kind: 'SYSTEM', userId: null };

/**
 * The published property a portal form refers to, inside the caller's transaction; a 400 naming
 * `field` when the id is malformed, unknown, of another agency or not published (forms refer to
 * what the portal shows, so an unpublished id is as wrong as a made-up one).
 */
export async function requirePortalProperty(
  tx: Tx,
  organizationId: string,
  id: string,
  field = 'body.propertyId',
): Promise<store.PropertyRef> {
  const found = isId(id, 'prop') ? await store.findPortalPropertyRef(tx, organizationId, id) : null;
  if (!found) throw Errors.invalidField(field, `does not name a property published on this agency's portal`);
  return found;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

function coordinates(latitude: number | null, longitude: number | null) {
  return latitude === null || longitude === null ? null : { latitude, longitude };
}

/** The portal view: approximate locations lose address and zip code and show rounded coordinates. */
export function toPortalProperty({ property: p, agent }: store.PortalPropertyWithAgent): PortalProperty {
  return {
    id: p.id,
    code: p.code,
    title: p.title,
    description: p.description,
    transactionType: p.transactionType as TransactionType,
    type: p.type as PropertyType,
    status: p.status as PropertyStatus,
    featured: p.featured,
    price: p.price,
    currency: p.currency,
    city: p.city,
    neighborhood: p.neighborhood,
    address: p.approximateLocation ? null : p.address,
    zipCode: p.approximateLocation ? null : p.zipCode,
    coordinates: coordinates(p.portalLatitude, p.portalLongitude),
    approximateLocation: p.approximateLocation,
    bedrooms: p.bedrooms,
    bathrooms: p.bathrooms,
    area: p.area,
    amenities: p.amenities.filter((a): a is Amenity => (AMENITIES as readonly string[]).includes(a)),
    photos: p.photos.map((photo) => ({ url: photo.url, caption: photo.caption ?? null })),
    agent: agent
      ? {
          id: agent.id,
          firstName: agent.firstName,
          lastName: agent.lastName,
          phone: agent.phone,
          email: agent.email,
          photoUrl: agent.photoUrl,
        }
      : null,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** The back-office view: everything, exact location included. */
export function toAdminProperty(record: store.PropertyWithAgent): AdminProperty {
  const p = record.property;
  return {
    ...toPortalProperty(record),
    address: p.address,
    zipCode: p.zipCode,
    coordinates: coordinates(p.latitude, p.longitude),
    publishedOnPortal: p.publishedOnPortal,
    agentId: p.agentId,
    internalNotes: p.internalNotes,
    customFields: p.customFields,
  };
}

/** The event payload of a property (property.* events); shared with the bulk import. */
export function eventProperty(p: PropertyRow) {
  return {
    id: p.id,
    code: p.code,
    title: p.title,
    transactionType: p.transactionType,
    type: p.type,
    status: p.status,
    publishedOnPortal: p.publishedOnPortal,
    featured: p.featured,
    price: p.price,
    currency: p.currency,
    city: p.city,
    neighborhood: p.neighborhood,
    agentId: p.agentId,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** Everything a writer may set, as the columns hold it (derived columns included). */
export type PropertyColumns = Omit<store.NewProperty, 'id' | 'organizationId' | 'createdAt' | 'updatedAt'>;

/**
 * Columns of a property from its writable fields: trimmed text, folded search columns, and the
 * coordinates the portal may show (rounded to 2 decimals, about 1 km, when approximate).
 */
export function propertyColumns(
  input: CreatePropertyBody,
  defaults: { defaultCurrency: string },
): PropertyColumns {
  const latitude = input.coordinates?.latitude ?? null;
  const longitude = input.coordinates?.longitude ?? null;
  const approximate = input.approximateLocation ?? false;
  const city = input.city.trim();
  const neighborhood = input.neighborhood?.trim() || null;
  const title = input.title.trim();
  const description = input.description ?? '';
  return {
    code: input.code,
    title,
    description,
    transactionType: input.transactionType,
    type: input.type,
    status: input.status ?? 'ACTIVE',
    publishedOnPortal: input.publishedOnPortal ?? true,
    featured: input.featured ?? false,
    price: input.price,
    currency: input.currency ?? defaults.defaultCurrency,
    city,
    neighborhood,
    address: input.address ?? null,
    zipCode: input.zipCode ?? null,
    latitude,
    longitude,
    approximateLocation: approximate,
    portalLatitude: latitude === null ? null : approximate ? round2(latitude) : latitude,
    portalLongitude: longitude === null ? null : approximate ? round2(longitude) : longitude,
    bedrooms: input.bedrooms ?? 0,
    bathrooms: input.bathrooms ?? 0,
    area: input.area ?? null,
    amenities: [...new Set(input.amenities ?? [])],
    photos: (input.photos ?? []).map((photo) => ({ url: photo.url, caption: photo.caption ?? null })),
    agentId: input.agentId ?? null,
    internalNotes: input.internalNotes ?? null,
    customFields: input.customFields ?? {},
    searchCity: fold(city),
    searchNeighborhood: fold(neighborhood ?? ''),
    searchText: fold([input.code, title, description, city, neighborhood ?? ''].join(' ')),
  };
}

/** The writable fields of a stored property (the base a PATCH is merged onto). */
function writableOf(p: PropertyRow): CreatePropertyBody {
  return {
    code: p.code,
    title: p.title,
    description: p.description,
    transactionType: p.transactionType as TransactionType,
    type: p.type as PropertyType,
    status: p.status as PropertyStatus,
    publishedOnPortal: p.publishedOnPortal,
    featured: p.featured,
    price: p.price,
    currency: p.currency,
    city: p.city,
    neighborhood: p.neighborhood,
    address: p.address,
    zipCode: p.zipCode,
    coordinates: coordinates(p.latitude, p.longitude),
    approximateLocation: p.approximateLocation,
    bedrooms: p.bedrooms,
    bathrooms: p.bathrooms,
    area: p.area,
    amenities: p.amenities as Amenity[],
    photos: p.photos,
    agentId: p.agentId,
    internalNotes: p.internalNotes,
    customFields: p.customFields,
  };
}

async function checkAgent(tx: Tx, organizationId: string, agentId: string | null | undefined) {
  if (agentId === null || agentId === undefined) return;
  if (!(await isAgentOf(tx, organizationId, agentId))) {
    throw Errors.invalidField('body.agentId', 'does not name an agent of this organization');
  }
}

async function withCodeCheck<T>(code: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const failure = databaseError(error);
    if (failure?.code === UNIQUE_VIOLATION && failure.constraint === 'properties_organization_id_code_key') {
      throw Errors.duplicate(`A property with code ${code} already exists in this organization`);
    }
    throw error;
  }
}

/**
 * A back-office transaction on `organizationId`: 404 when it is not an organization (checked
 * before the id reaches the tenant setting), with the organization's defaults at hand.
 */
async function adminTx<T>(
  db: Database,
  organizationId: string,
  work: (tx: Tx, organization: TenantOrganization) => Promise<T>,
): Promise<T> {
  return inTenantOrganization(db, organizationId, work);
}

async function loadAdminProperty(tx: Tx, organizationId: string, propertyId: string) {
  const found = isId(propertyId, 'prop')
    ? await store.findPropertyById(tx, organizationId, propertyId, { portal: false })
    : null;
  if (!found) throw Errors.notFound('Property', propertyId);
  return found;
}

/** Creates a property (back office); 409 DUPLICATE when its code is taken, 400 for an unknown agent. */
export async function createProperty(
  db: Database,
  organizationId: string,
  body: CreatePropertyBody,
): Promise<AdminProperty> {
  return adminTx(db, organizationId, async (tx, organization) => {
    await checkAgent(tx, organizationId, body.agentId);
    const row = await store.insertProperty(tx, {
      id: newId('prop'),
      organizationId,
      ...propertyColumns(body, organization),
    });
    if (!row) {
      const existing = await store.findPropertyByCode(tx, organizationId, body.code);
      throw Errors.duplicate(`A property with code ${body.code} already exists in this organization`, {
        existingId: existing?.id ?? null,
      });
    }
    await recordEvent(tx, {
      type: PropertyCreated.type,
      data: { property: eventProperty(row) },
      actor: OPERATOR,
    });
    return toAdminProperty(await loadAdminProperty(tx, organizationId, row.id));
  });
}

/** Changes some fields of a property; derived columns follow. 404 outside the organization. */
export async function updateProperty(
  db: Database,
  organizationId: string,
  propertyId: string,
  body: UpdatePropertyBody,
): Promise<AdminProperty> {
  return withCodeCheck(body.code, () =>
    adminTx(db, organizationId, async (tx, organization) => {
      const current = await loadAdminProperty(tx, organizationId, propertyId);
      if (body.agentId !== undefined) await checkAgent(tx, organizationId, body.agentId);
      const merged = { ...writableOf(current.property), ...body } as CreatePropertyBody;
      const row = await store.updateProperty(
        tx,
        organizationId,
        propertyId,
        propertyColumns(merged, organization),
      );
      if (!row) throw Errors.notFound('Property', propertyId);
      await recordEvent(tx, {
        type: PropertyUpdated.type,
        data: { property: eventProperty(row), changes: Object.keys(body).sort() },
        actor: OPERATOR,
      });
      return toAdminProperty(await loadAdminProperty(tx, organizationId, propertyId));
    }),
  );
}

/** Deletes a property; its leads and appointments keep their history without it. */
export async function deleteProperty(
  db: Database,
  organizationId: string,
  propertyId: string,
): Promise<{ id: string; deleted: true }> {
  return adminTx(db, organizationId, async (tx) => {
    const row = isId(propertyId, 'prop') ? await store.deleteProperty(tx, organizationId, propertyId) : null;
    if (!row) throw Errors.notFound('Property', propertyId);
    await recordEvent(tx, {
      type: PropertyDeleted.type,
      data: { property: eventProperty(row) },
      actor: OPERATOR,
    });
    return { id: propertyId, deleted: true as const };
  });
}

/** One property, back-office view. */
export async function getAdminProperty(db: Database, organizationId: string, propertyId: string) {
  return adminTx(db, organizationId, async (tx) => {
    return toAdminProperty(await loadAdminProperty(tx, organizationId, propertyId));
  });
}

/** The organization's properties, newest first, with back-office filters. */
export async function listAdminProperties(
  db: Database,
  organizationId: string,
  query: AdminListPropertiesQuery,
) {
  const page = pageRequest(query);
  const { items, total } = await adminTx(db, organizationId, async (tx) => {
    return store.listProperties(tx, organizationId, query, page);
  });
  return { data: items.map(toAdminProperty), meta: pageMeta(total, page) };
}

function parseNumbers(text: string): number[] {
  return text.split(',').map(Number);
}

/** Turns the portal query into a checked filter: ranges in order, geo parameters consistent. */
export function portalFilter(query: PortalListQuery): store.PortalFilter {
  const filter: store.PortalFilter = {
    type: query.type,
    city: query.city,
    neighborhood: query.neighborhood,
    q: query.q,
    priceMin: query.priceMin,
    priceMax: query.priceMax,
    bedroomsMin: query.bedroomsMin,
    bathroomsMin: query.bathroomsMin,
    areaMin: query.areaMin,
    areaMax: query.areaMax,
    featured: query.featured,
  };
  if (query.transactionType !== undefined) {
    filter.transactionTypes =
      query.transactionType === 'SALE_OR_RENT' ? ['SALE_OR_RENT'] : [query.transactionType, 'SALE_OR_RENT'];
  }
  if (query.priceMin !== undefined && query.priceMax !== undefined && query.priceMin > query.priceMax)
    throw Errors.invalidField('querystring.priceMax', 'must be greater than or equal to priceMin');
  if (query.areaMin !== undefined && query.areaMax !== undefined && query.areaMin > query.areaMax)
    throw Errors.invalidField('querystring.areaMax', 'must be greater than or equal to areaMin');
  const amenities = AMENITIES.filter((amenity) => ['1', 'true'].includes(query[amenityFlag(amenity)] ?? ''));
  if (amenities.length > 0) filter.amenities = amenities;
  if (query.bounds !== undefined) {
    const [south, west, north, east] = parseNumbers(query.bounds) as [number, number, number, number];
    if (south < -90 || north > 90 || south > north)
      throw Errors.invalidField(
        'querystring.bounds',
        'must be south,west,north,east with -90 <= south <= north <= 90',
      );
    if (west < -180 || east > 180 || west > east)
      throw Errors.invalidField(
        'querystring.bounds',
        'must be south,west,north,east with -180 <= west <= east <= 180',
      );
    filter.bounds = { south, west, north, east };
  }
  if (query.near !== undefined) {
    const [latitude, longitude] = parseNumbers(query.near) as [number, number];
    if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180)
      throw Errors.invalidField(
        'querystring.near',
        'must be latitude,longitude within -90..90 and -180..180',
      );
    filter.near = { latitude, longitude, radiusKm: query.radiusKm ?? 10 };
  } else if (query.radiusKm !== undefined) {
    throw Errors.invalidField('querystring.radiusKm', 'needs near=latitude,longitude');
  }
  if (query.sortBy === 'distance' && !filter.near)
    throw Errors.invalidField('querystring.sortBy', 'distance needs near=latitude,longitude');
  return filter;
}

function portalSort(query: PortalListQuery): store.PortalSort {
  const by = query.sortBy ?? 'createdAt';
  return { by, order: query.sortOrder ?? (by === 'createdAt' ? 'desc' : 'asc') };
}

/** The published stock matching the portal filters, one page of at most 48. */
export async function searchPortalProperties(db: Database, organizationId: string, query: PortalListQuery) {
  const filter = portalFilter(query);
  const page = pageRequest(query, 12);
  const { items, total } = await db.tenantTx(organizationId, (tx) =>
    store.listPortalProperties(tx, organizationId, filter, portalSort(query), page),
  );
  return { data: items.map(toPortalProperty), meta: pageMeta(total, page) };
}

/** Featured published properties, newest first. */
export async function listFeaturedProperties(
  db: Database,
  organizationId: string,
  query: { page?: number; pageSize?: number },
) {
  const page = pageRequest(query, 12);
  const { items, total } = await db.tenantTx(organizationId, (tx) =>
    store.listPortalProperties(
      tx,
      organizationId,
      { featured: true },
      { by: 'createdAt', order: 'desc' },
      page,
    ),
  );
  return { data: items.map(toPortalProperty), meta: pageMeta(total, page) };
}

/** One published property; 404 when unknown, unpublished or of another agency (one message for all). */
export async function getPortalProperty(db: Database, organizationId: string, propertyId: string) {
  const found = isId(propertyId, 'prop')
    ? await db.tenantTx(organizationId, (tx) =>
        store.findPropertyById(tx, organizationId, propertyId, { portal: true }),
      )
    : null;
  if (!found) throw Errors.notFound('Property', propertyId);
  return toPortalProperty(found);
}

/** Facets of the published stock, to build a search form from what the agency actually has. */
export async function portalFilters(db: Database, organizationId: string): Promise<PortalFilters> {
  const rows = await db.tenantTx(organizationId, (tx) => store.portalFacets(tx, organizationId));
  const filters: PortalFilters = {
    total: 0,
    transactionTypes: [],
    types: [],
    cities: [],
    neighborhoods: [],
    bedrooms: [],
    amenities: [],
    priceRanges: [],
    area: { min: null, max: null },
    sortOptions: ['createdAt', 'price', 'area', 'distance'],
  };
  const num = (value: string | number | null) => (value === null ? null : Number(value));
  for (const row of rows) {
    const count = Number(row.n);
    const key = row.key1 ?? '';
    switch (row.facet) {
      case 'total':
        filters.total = count;
        filters.area = { min: num(row.min), max: num(row.max) };
        break;
      case 'transactionType':
        filters.transactionTypes.push({ value: key, count });
        break;
      case 'type':
        filters.types.push({ value: key, count });
        break;
      case 'city':
        filters.cities.push({ value: key, count });
        break;
      case 'neighborhood':
        filters.neighborhoods.push({ city: key, value: row.key2 ?? '', count });
        break;
      case 'bedrooms':
        filters.bedrooms.push({ value: Number(key), count });
        break;
      case 'amenity':
        if ((AMENITIES as readonly string[]).includes(key))
          filters.amenities.push({ value: key as Amenity, flag: amenityFlag(key as Amenity), count });
        break;
      case 'price':
        filters.priceRanges.push({
          transactionType: key as TransactionType,
          currency: row.key2 ?? '',
          min: Number(row.min),
          max: Number(row.max),
        });
        break;
    }
  }
  const byCount = (a: { count: number; value: unknown }, b: { count: number; value: unknown }) =>
    b.count - a.count || String(a.value).localeCompare(String(b.value));
  filters.transactionTypes.sort(byCount);
  filters.types.sort(byCount);
  filters.cities.sort(byCount);
  filters.neighborhoods.sort((a, b) => a.city.localeCompare(b.city) || byCount(a, b));
  filters.bedrooms.sort((a, b) => a.value - b.value);
  filters.amenities.sort(byCount);
  filters.priceRanges.sort(
    (a, b) => a.transactionType.localeCompare(b.transactionType) || a.currency.localeCompare(b.currency),
  );
  return filters;
}

/**
 * True when `id` is a property of the organization, published or not: how back-office features
 * (deals, appointments) check a property reference.
 */
export async function isPropertyOf(tx: Tx, organizationId: string, id: string): Promise<boolean> {
  return (
    isId(id, 'prop') && (await store.findPropertyById(tx, organizationId, id, { portal: false })) !== null
  );
}
