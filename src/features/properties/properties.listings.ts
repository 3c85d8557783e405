// The agency's listing API's reads (/v1/listings): every status, the back-office view, the history.
import type { Database } from '../../db/database.ts';
import type { PropertyChangeRow } from '../../db/schema.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import {
  countedPageMeta,
  listPage,
  listRequest,
  pageRequest,
  type ListMeta,
  type PageMeta,
} from '../../platform/http/pagination.ts';
import { readAs } from '../../platform/tenancy/caller-tx.ts';
import { fold } from '../../platform/text/fold.ts';
import { listPropertyChanges } from './properties.changes.store.ts';
import type { ListingListQuery, PropertyChange } from './properties.listings.schema.ts';
import { portalFilter } from './properties.portal.ts';
import type { PortalListQuery } from './properties.portal.schema.ts';
import type { AdminProperty } from './properties.schema.ts';
import { loadListing, toAdminProperty } from './properties.service.ts';
import * as store from './properties.store.ts';

function filterOf(query: ListingListQuery): store.AdminPropertyFilter {
  // The portal's checks of its own filters (ranges in order, geo parameters consistent), reused.
  const portal = portalFilter({ ...query, transactionType: undefined } as unknown as PortalListQuery);
  return {
    status: query.status,
    publishedOnPortal: query.publishedOnPortal,
    featured: query.featured,
    agentId: query.agentId,
    code: query.code,
    q: query.q,
    transactionType: query.transactionType,
    type: query.type,
    city: query.city === undefined ? undefined : fold(query.city),
    priceMin: query.priceMin,
    priceMax: query.priceMax,
    bedroomsMin: query.bedroomsMin,
    neighborhood: query.neighborhood === undefined ? undefined : fold(query.neighborhood),
    bathroomsMin: query.bathroomsMin,
    areaMin: query.areaMin,
    areaMax: query.areaMax,
    amenities: portal.amenities,
    bounds: portal.bounds,
    near: portal.near,
  };
}

/**
 * The caller's organization's listings (GET /v1/listings, the back office's property list): newest
 * first in page mode, oldest change first in cursor mode.
 */
export async function listListings(
  db: Database,
  caller: Caller,
  query: ListingListQuery,
): Promise<{ data: AdminProperty[]; meta: ListMeta }> {
  const organizationId = caller.organization.id;
  const filter = filterOf(query);
  const request = listRequest(query, { list: 'listings', organizationId });
  return readAs(db, caller, (tx) =>
    listPage(
      request,
      {
        cursor: (keyset) => store.listPropertiesByUpdatedAt(tx, organizationId, filter, keyset),
        page: (page) => store.listProperties(tx, organizationId, filter, page),
      },
      toAdminProperty,
    ),
  );
}

/** One listing, back-office view, whatever its status: 404 for a malformed, unknown or other organization's id. */
export async function getListing(db: Database, caller: Caller, id: string): Promise<AdminProperty> {
  return readAs(db, caller, async (tx) => toAdminProperty(await loadListing(tx, caller.organization.id, id)));
}

function toChange(row: PropertyChangeRow): PropertyChange {
  return {
    id: row.id,
    kind: row.kind,
    previousPrice: row.previousPrice,
    price: row.price,
    currency: row.currency,
    previousStatus: row.previousStatus,
    status: row.status,
    actor: { kind: row.actorKind, userId: row.actorUserId },
    createdAt: row.createdAt.toISOString(),
  };
}

/** GET /v1/listings/{id}/history: its price and status changes, oldest first; 404 as for the listing. */
export async function listingHistory(
  db: Database,
  caller: Caller,
  id: string,
  query: { page?: number; pageSize?: number },
): Promise<{ data: PropertyChange[]; meta: PageMeta }> {
  const organizationId = caller.organization.id;
  const page = pageRequest(query);
  return readAs(db, caller, async (tx) => {
    await loadListing(tx, organizationId, id);
    const { items, total } = await listPropertyChanges(tx, organizationId, id, page);
    return { data: items.map(toChange), meta: countedPageMeta(total, page, items.length) };
  });
}
