// Syndication feeds (issue 25 item 7, decision 0235): an organization's published stock at two URLs that
// carry an unguessable token (Kyero v3 XML and JSON), streamed in batches, with validators derived from
// the portal version so a portal polling them downloads only after a change.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Database } from '../../db/database.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { readAs } from '../../platform/tenancy/caller-tx.ts';
import type { TokenCredentialResolver } from '../../platform/auth/credentials.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { feedBatch, feedPhoto, type FeedListing, type FeedPosition } from '../properties/index.ts';
import {
  fitsKyero,
  KYERO_IMAGE_ENDINGS,
  KYERO_TAIL,
  kyeroHead,
  kyeroProperty,
  type PhotoAlias,
} from './feeds.kyero.ts';
import * as store from './feeds.store.ts';

export const FEED_FORMATS = ['kyero', 'json'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];
export const FEED_FILES: Record<FeedFormat, string> = { kyero: 'kyero.xml', json: 'listings.json' };

/** Listings read per statement while a feed streams: memory stays bounded by one batch. */
export const FEED_BATCH = 500;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** The feed URLs of a token. */
export function feedUrls(origin: string, token: string): Record<FeedFormat, string> {
  return {
    kyero: `${origin}/feeds/${token}/${FEED_FILES.kyero}`,
    json: `${origin}/feeds/${token}/${FEED_FILES.json}`,
  };
}

export interface FeedSettings {
  enabled: boolean;
  tokenPrefix: string | null;
  createdAt: string | null;
}

/** Whether the caller's organization's feed URLs answer, and its token's first characters. */
export async function getFeedSettings(db: Database, caller: Caller): Promise<FeedSettings> {
  const organizationId = caller.organization.id;
  const state = await db.systemTx((tx) => store.findTokenState(tx, organizationId));
  return {
    enabled: Boolean(state?.prefix),
    tokenPrefix: state?.prefix ?? null,
    createdAt: state?.createdAt?.toISOString() ?? null,
  };
}

/** A new token for the organization's feeds (the previous one stops working at once); shown only now. */
export async function rotateFeedToken(
  db: Database,
  caller: Caller,
): Promise<{ token: string; createdAt: string }> {
  const organizationId = caller.organization.id;
  // 32 random bytes, base64url: 256 bits, nothing to guess.
  const token = randomBytes(32).toString('base64url');
  // The organizations table is a reference table: written in a system transaction, by id.
  await db.systemTx((tx) =>
    store.setToken(tx, organizationId, { hash: hashOf(token), prefix: token.slice(0, 6) }),
  );
  const settings = await getFeedSettings(db, caller);
  return { token, createdAt: settings.createdAt ?? new Date().toISOString() };
}

/** Turns the feeds off: their URLs answer 404. */
export async function disableFeeds(db: Database, caller: Caller): Promise<void> {
  await db.systemTx((tx) => store.setToken(tx, caller.organization.id, null));
}

/**
 * The feed URLs' token as a credential (manifest `credentials`): the organization it names, whose
 * state the auth hook then checks as for any credential; 404 (the same for every wrong token) otherwise.
 */
export function feedCredential(db: Database): TokenCredentialResolver {
  return {
    kind: 'feed',
    scopes: ['portal:read'],
    // Per URL: a person or a calendar client polling, never a crawler's pace.
    limits: { requestsPerMinute: 120, writesPerMinute: 0 },
    actor: { kind: 'API', userId: null },
    notFound: () => Errors.notFound('Feed', 'this URL'),
    async resolve(token) {
      const organization = /^[A-Za-z0-9_-]{43}$/.test(token)
        ? await store.findByTokenHash(db, hashOf(token))
        : null;
      return organization && { organizationId: organization.id, id: organization.id, agentId: null };
    },
  };
}

/** What a feed shows of its caller's organization. */
export function feedOrganizationOf(caller: Caller): store.FeedOrganization {
  const { id, name, defaultLanguage, otherLanguages } = caller.organization;
  return { id, name, defaultLanguage, otherLanguages };
}

/**
 * Validators of a feed: its ETag follows the portal version (bumped with every change the portal can
 * show, migration 0019), Last-Modified is when that version last changed.
 */
export async function feedValidators(
  db: Database,
  caller: Caller,
  format: FeedFormat,
): Promise<{ etag: string; changedAt: Date }> {
  const organizationId = caller.organization.id;
  const { version, changedAt } = await readAs(db, caller, (tx) => store.portalVersion(tx, organizationId));
  return {
    // Weak: gzip, br and identity are different bytes of the same feed (RFC 9110 8.8.3).
    etag: `W/"${format}-${organizationId.slice(4)}-${version}"`,
    // Before any change: the epoch (a portal's If-Modified-Since then always matches until a change).
    changedAt: changedAt ?? new Date(0),
  };
}

/** Every published listing, a batch at a time, pulled as the client reads. */
async function* listings(db: Database, caller: Caller): AsyncGenerator<FeedListing> {
  let after: FeedPosition | null = null;
  do {
    const batch = await feedBatch(db, caller, after, FEED_BATCH);
    yield* batch.items;
    after = batch.next;
  } while (after !== null);
}

/**
 * The alias URLs of a feed's photos (decision 0266): under the feed's own token URL, so they answer
 * exactly while the feed does, and name the listing and the photo (ids nobody can enumerate).
 */
export function photoAlias(feedBase: string): PhotoAlias {
  return (listingId, photoId, ending) => `${feedBase}/photos/${listingId}/${photoId}.${ending}`;
}

/**
 * Where a feed photo's alias leads: the stored URL of that photo given by URL, when its listing is one
 * the feed shows and its probed type is the one the alias ends with; 404 otherwise, whatever is missing.
 */
export async function feedPhotoTarget(
  db: Database,
  caller: Caller,
  listingId: string,
  file: { photoId: string; ending: string },
): Promise<string> {
  const photo = await feedPhoto(db, caller, listingId, file.photoId);
  if (photo === null || KYERO_IMAGE_ENDINGS[photo.contentType] !== file.ending) {
    throw Errors.notFound('Photo', file.photoId);
  }
  return photo.url;
}

async function* kyeroChunks(db: Database, caller: Caller, alias: PhotoAlias): AsyncGenerator<string> {
  yield kyeroHead(new Date());
  let chunk = '';
  for await (const listing of listings(db, caller)) {
    if (!fitsKyero(listing)) continue;
    chunk += kyeroProperty(listing, caller.organization.defaultCountry, alias);
    if (chunk.length >= 64 * 1024) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk + KYERO_TAIL;
}

async function* jsonChunks(db: Database, caller: Caller): AsyncGenerator<string> {
  const organization = feedOrganizationOf(caller);
  const head = {
    organization: {
      id: organization.id,
      name: organization.name,
      defaultLanguage: organization.defaultLanguage,
      languages: [organization.defaultLanguage, ...organization.otherLanguages],
    },
    generatedAt: new Date().toISOString(),
  };
  yield `${JSON.stringify(head).slice(0, -1)},"listings":[`;
  let chunk = '';
  let first = true;
  for await (const { listing, texts } of listings(db, caller)) {
    chunk += `${first ? '\n' : ',\n'}${JSON.stringify({ property: listing, texts })}`;
    first = false;
    if (chunk.length >= 64 * 1024) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}\n]}\n`;
}

/**
 * The caller's feed as a stream: the database is read only as fast as the client takes it. `feedBase`
 * is the feed's token URL without the file (its photos' aliases live under it).
 */
export function feedStream(db: Database, caller: Caller, format: FeedFormat, feedBase: string): Readable {
  const chunks = format === 'kyero' ? kyeroChunks(db, caller, photoAlias(feedBase)) : jsonChunks(db, caller);
  return Readable.from(chunks, {
    objectMode: false,
  });
}
