// The portal's reads of properties: the listing with its filters and sorts, featured, detail, facets.
import type { Database } from '../../db/database.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import {
  countedPageMeta,
  listPage,
  listRequest,
  pageRequest,
  type ListMeta,
} from '../../platform/http/pagination.ts';
import { isId } from '../../platform/ids/ids.ts';
import { readAs } from '../../platform/tenancy/caller-tx.ts';
import { AMENITIES, type Amenity, type PortalProperty, type TransactionType } from './properties.schema.ts';
import { amenityFlag, type PortalFilters, type PortalListQuery } from './properties.portal.schema.ts';
import { toPortalProperty } from './properties.service.ts';
import * as portalStore from './properties.portal.store.ts';
import type { PortalPropertyWithAgent } from './properties.store.ts';

function parseNumbers(text: string): number[] {
  return text.split(',').map(Number);
}

/** Turns the portal query into a checked filter: ranges in order, geo parameters consistent. */
export function portalFilter(query: PortalListQuery): portalStore.PortalFilter {
  const filter: portalStore.PortalFilter = {
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
    throw Errors.invalidField('query.priceMax', 'must be greater than or equal to priceMin');
  if (query.areaMin !== undefined && query.areaMax !== undefined && query.areaMin > query.areaMax)
    throw Errors.invalidField('query.areaMax', 'must be greater than or equal to areaMin');
  const amenities = AMENITIES.filter((amenity) => ['1', 'true'].includes(query[amenityFlag(amenity)] ?? ''));
  if (amenities.length > 0) filter.amenities = amenities;
  if (query.bounds !== undefined) {
    const [south, west, north, east] = parseNumbers(query.bounds) as [number, number, number, number];
    if (south < -90 || north > 90 || south > north)
      throw Errors.invalidField(
        'query.bounds',
        'must be south,west,north,east with -90 <= south <= north <= 90',
      );
    if (west < -180 || east > 180 || west > east)
      throw Errors.invalidField(
        'query.bounds',
        'must be south,west,north,east with -180 <= west <= east <= 180',
      );
    filter.bounds = { south, west, north, east };
  }
  if (query.near !== undefined) {
    const [latitude, longitude] = parseNumbers(query.near) as [number, number];
    if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180)
      throw Errors.invalidField('query.near', 'must be latitude,longitude within -90..90 and -180..180');
    filter.near = { latitude, longitude, radiusKm: query.radiusKm ?? 10 };
  } else if (query.radiusKm !== undefined) {
    throw Errors.invalidField('query.radiusKm', 'needs near=latitude,longitude');
  }
  if (query.sortBy === 'distance' && !filter.near)
    throw Errors.invalidField('query.sortBy', 'distance needs near=latitude,longitude');
  return filter;
}

function portalSort(query: PortalListQuery): portalStore.PortalSort {
  const by = query.sortBy ?? 'createdAt';
  return { by, order: query.sortOrder ?? (by === 'createdAt' ? 'desc' : 'asc') };
}

/**
 * The published stock matching the portal filters, one page of at most 48, or a cursor page
 * (`updatedAfter`, `cursor`) for a site that mirrors the listings.
 */
export async function searchPortalProperties(
  db: Database,
  caller: Caller,
  query: PortalListQuery,
  served?: string,
): Promise<{ data: PortalProperty[]; meta: ListMeta }> {
  const organizationId = caller.organization.id;
  const view = (row: PortalPropertyWithAgent) => toPortalProperty(row, served);
  const filter = portalFilter(query);
  const request = listRequest(query, { list: 'portal.properties', organizationId, defaultPageSize: 12 });
  return listPage(
    request,
    {
      cursor: (keyset) =>
        readAs(db, caller, (tx) =>
          portalStore.listPortalPropertiesByUpdatedAt(tx, organizationId, filter, keyset),
        ),
      page: (page) =>
        readAs(db, caller, (tx) =>
          portalStore.listPortalProperties(tx, organizationId, filter, portalSort(query), page),
        ),
    },
    view,
  );
}

/** Featured published properties, newest first. */
export async function listFeaturedProperties(
  db: Database,
  caller: Caller,
  query: { page?: number; pageSize?: number },
  served?: string,
) {
  const page = pageRequest(query, 12);
  const { items, total } = await readAs(db, caller, (tx) =>
    portalStore.listPortalProperties(
      tx,
      caller.organization.id,
      { featured: true },
      { by: 'createdAt', order: 'desc' },
      page,
    ),
  );
  return {
    data: items.map((row) => toPortalProperty(row, served)),
    meta: countedPageMeta(total, page, items.length),
  };
}

/** One published property; 404 when unknown, unpublished or of another agency (one message for all). */
export async function getPortalProperty(db: Database, caller: Caller, propertyId: string, served?: string) {
  const found = isId(propertyId, 'prop')
    ? await readAs(db, caller, (tx) => portalStore.findPortalProperty(tx, caller.organization.id, propertyId))
    : null;
  if (!found) throw Errors.notFound('Property', propertyId);
  return toPortalProperty(found, served);
}

/** Facets of the published stock, to build a search form from what the agency actually has. */
export async function portalFilters(db: Database, caller: Caller): Promise<PortalFilters> {
  const rows = await readAs(db, caller, (tx) => portalStore.portalFacets(tx, caller.organization.id));
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
