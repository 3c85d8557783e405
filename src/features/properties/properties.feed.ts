// The published stock as the syndication feeds read it (issue 25 item 7): the portal's view (address
// and coordinates as the listing's visibility allows, properties.location.ts) with every language's text,
// in batches on the portal's (organization_id, created_at, id) partial index, so a feed of any size
// streams in constant memory. created_at never changes, so a walk sees each listing at most once.
import { and, asc, eq, gt, or, sql } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/caller.ts';
import { readAs } from '../../platform/tenancy/caller-tx.ts';
import type { Database } from '../../db/database.ts';
import { agents, properties, type PropertyPhoto } from '../../db/schema.ts';
import type { PortalProperty } from './properties.schema.ts';
import { findPhoto, isUploaded, withIds } from './properties.photos.rules.ts';
import { toPortalProperty } from './properties.service.ts';
import { agentCard, findPropertyById, portalColumns, portalVisible } from './properties.store.ts';
import { isId } from '../../platform/ids/ids.ts';

/** A listing of a feed: the portal's view, and its title and description in each language it has. */
export interface FeedListing {
  listing: PortalProperty;
  /** The organization's default language first (the listing's own text), then its translations. */
  texts: { language: string; title: string; description: string }[];
  /** The probed media type of its photos given by URL, by photo id (decision 0266): what the feeds may alias. */
  imageTypes: Record<string, string>;
}

/** The probed media types of a listing's photos given by URL, by photo id. */
function probedTypes(photos: readonly PropertyPhoto[]): Record<string, string> {
  return Object.fromEntries(
    withIds(photos).flatMap(({ id, photo }) =>
      typeof photo.contentType === 'string' ? [[id, photo.contentType]] : [],
    ),
  );
}

/** Where the next batch starts. */
export interface FeedPosition {
  createdAt: string;
  id: string;
}

/** Up to `limit` published listings after `after`, oldest first, and where the next batch starts. */
export async function feedBatch(
  db: Database,
  caller: Caller,
  after: FeedPosition | null,
  limit: number,
): Promise<{ items: FeedListing[]; next: FeedPosition | null }> {
  const organizationId = caller.organization.id;
  const rows = await readAs(db, caller, (tx) =>
    tx
      .select({
        property: portalColumns,
        agent: agentCard,
        // Microseconds kept: the next batch starts exactly after this row.
        position: sql<string>`to_char(${properties.createdAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
      })
      .from(properties)
      .leftJoin(
        agents,
        and(eq(agents.organizationId, properties.organizationId), eq(agents.id, properties.agentId)),
      )
      .where(
        and(
          eq(properties.organizationId, organizationId),
          portalVisible,
          after === null
            ? undefined
            : or(
                gt(properties.createdAt, sql`${after.createdAt}::timestamptz`),
                and(
                  eq(properties.createdAt, sql`${after.createdAt}::timestamptz`),
                  gt(properties.id, after.id),
                ),
              ),
        ),
      )
      .orderBy(asc(properties.createdAt), asc(properties.id))
      .limit(limit),
  );
  const items = rows.map(({ property, agent }) => {
    const listing = toPortalProperty({ property, agent });
    const own = { language: listing.language, title: property.title, description: property.description };
    const translated = Object.entries(property.translations)
      .filter(([language]) => language !== own.language)
      .map(([language, text]) => ({ language, title: text.title, description: text.description }));
    // Ids are hashed only for a listing with a probed photo: most have none, and a feed reads them all.
    const probed = property.photos.some((photo) => typeof photo.contentType === 'string');
    const imageTypes = probed ? probedTypes(property.photos) : {};
    return { listing, texts: [own, ...translated], imageTypes };
  });
  const last = rows.at(-1);
  return {
    items,
    next: rows.length === limit && last ? { createdAt: last.position, id: last.property.id } : null,
  };
}

/**
 * The address and probed media type of a photo given by URL of a listing the feeds show (published,
 * ACTIVE), for the Kyero feed's alias (decision 0266); null for anything else, the same whatever is missing.
 */
export async function feedPhoto(
  db: Database,
  caller: Caller,
  propertyId: string,
  photoId: string,
): Promise<{ url: string; contentType: string } | null> {
  if (!isId(propertyId, 'prop')) return null;
  const found = await readAs(db, caller, (tx) =>
    findPropertyById(tx, caller.organization.id, propertyId, { portal: true }),
  );
  const photo = found && findPhoto(found.property.photos, photoId)?.photo;
  if (!photo || isUploaded(photo) || typeof photo.contentType !== 'string') return null;
  return { url: photo.url, contentType: photo.contentType };
}
