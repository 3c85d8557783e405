// The rules of a listing's photos (decision 0233), without I/O: their ids and views, what a create
// or update keeps of the uploaded ones, and where an uploaded photo's files live in the storage.
import { createHash } from 'node:crypto';
import type { PropertyPhoto } from '../../db/schema.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { randomBase62 } from '../../platform/ids/ids.ts';
import type { PhotoView } from './properties.schema.ts';

/** Photos a listing may hold (the create and update bodies' `maxItems` too). */
export const MAX_PHOTOS = 50;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A new uploaded photo's id: 22 random base62 characters (~131 bits), also the secret part of its files' keys. */
export function newPhotoId(): string {
  return `ph_${randomBase62(22)}`;
}

/**
 * The id of a photo given by URL, derived from the URL (and which occurrence of it this is): the same
 * while the URL stays, in every answer and after every rewrite of the list, with nothing stored. The
 * SHA-256 read as a big-endian number, its 22 lowest base-62 digits, lowest first, by long division of
 * the digest's 32-bit words: no BigInt, whose garbage doubled the listing's GC (this runs for every
 * photo of every listing answer). Not remembered either: a memo gained nothing measurable (the guard's
 * listing ratio 0.376 with one, 0.388 without) and would hold a large catalogue's ids.
 */
export function linkedPhotoId(url: string, occurrence: number): string {
  const digest = createHash('sha256').update(`${url}\n${occurrence}`).digest();
  const limbs = [0, 4, 8, 12, 16, 20, 24, 28].map((offset) => digest.readUInt32BE(offset));
  let out = 'ph_';
  for (let n = 0; n < 22; n++) {
    let remainder = 0;
    for (let i = 0; i < limbs.length; i++) {
      // < 62 * 2^32: exact in a double.
      const current = remainder * 4_294_967_296 + (limbs[i] as number);
      limbs[i] = Math.floor(current / 62);
      remainder = current % 62;
    }
    out += BASE62[remainder];
  }
  return out;
}

/** An uploaded photo: its files are in the storage under its id. */
export function isUploaded(photo: PropertyPhoto): photo is PropertyPhoto & { id: string } {
  return typeof photo.id === 'string' && Array.isArray(photo.sizes);
}

/** Each stored photo with its id (stored for uploads, derived for photos given by URL), in order. */
export function withIds(photos: readonly PropertyPhoto[]): { id: string; photo: PropertyPhoto }[] {
  const seen = new Map<string, number>();
  return photos.map((photo) => {
    if (typeof photo.id === 'string') return { id: photo.id, photo };
    const occurrence = seen.get(photo.url) ?? 0;
    seen.set(photo.url, occurrence + 1);
    return { id: linkedPhotoId(photo.url, occurrence), photo };
  });
}

/** A photo as the portal and the agency views show it. */
function viewOf(id: string, photo: PropertyPhoto): PhotoView {
  return {
    id,
    url: photo.url,
    caption: photo.caption ?? null,
    altText: photo.altText ?? null,
    ...(isUploaded(photo)
      ? {
          width: photo.width ?? 0,
          height: photo.height ?? 0,
          sizes: (photo.sizes ?? []).map((size) => ({
            width: size.width,
            height: size.height,
            url: size.url,
          })),
          ...(photo.jpegUrl === undefined ? {} : { jpegUrl: photo.jpegUrl }),
        }
      : {}),
  };
}

/** The photos of a listing as the views show them. */
export function photoViews(photos: readonly PropertyPhoto[]): PhotoView[] {
  return withIds(photos).map(({ id, photo }) => viewOf(id, photo));
}

/** One photo by id, with its place in the list; null when the listing has no such photo. */
export function findPhoto(photos: readonly PropertyPhoto[], photoId: string) {
  const index = withIds(photos).findIndex((entry) => entry.id === photoId);
  const photo = photos[index];
  return photo === undefined ? null : { index, photo };
}

/** A photo of a create or update body: the view's fields, of which only some are taken. */
export interface PhotoInput {
  id?: string;
  url: string;
  caption?: string | null;
  altText?: string | null;
}

/**
 * A photo as the `photos` column keeps it: a photo given by URL as `{url, caption, altText?}`, an
 * uploaded one (an `id` and `sizes`) with its dimensions and sizes too.
 */
export function storedPhoto(
  photo: PhotoInput &
    Pick<PropertyPhoto, 'width' | 'height' | 'sizes' | 'jpegUrl' | 'contentType' | 'probedAt'>,
): PropertyPhoto {
  const stored: PropertyPhoto = { url: photo.url, caption: photo.caption ?? null };
  if (photo.altText !== undefined && photo.altText !== null) stored.altText = photo.altText;
  if (photo.id === undefined || !Array.isArray(photo.sizes)) return { ...stored, ...probeOf(photo) };
  return {
    id: photo.id,
    ...stored,
    width: photo.width,
    height: photo.height,
    sizes: photo.sizes.map((size) => ({ width: size.width, height: size.height, url: size.url })),
    ...(typeof photo.jpegUrl === 'string' ? { jpegUrl: photo.jpegUrl } : {}),
  };
}

/**
 * The photos a create or update stores from the body's list (`photos` is replaced whole): an entry
 * with the `id` of one of the listing's photos, or the `url` of one of its uploaded photos, keeps that
 * photo (an uploaded one keeps its files, sizes and dimensions; caption and alt text come from the
 * entry); any other entry is a photo given by URL (`width`, `height` and `sizes` sent with it are
 * ignored: they describe uploads). An `id` the listing does not have is a 400.
 */
export function photosToStore(
  current: readonly PropertyPhoto[],
  input: readonly PhotoInput[],
  field = 'body.photos',
): PropertyPhoto[] {
  const byId = new Map(withIds(current).map(({ id, photo }) => [id, photo]));
  const uploadedByUrl = new Map(current.filter(isUploaded).map((photo) => [photo.url, photo]));
  const kept = new Set<string>();
  const seen = new Map<string, number>();
  return input.map((entry, index) => {
    const occurrence = seen.get(entry.url) ?? 0;
    seen.set(entry.url, occurrence + 1);
    const stored = entry.id === undefined ? uploadedByUrl.get(entry.url) : byId.get(entry.id);
    if (entry.id !== undefined && stored === undefined) {
      throw Errors.invalidField(`${field}[${index}].id`, 'does not name a photo of this listing');
    }
    const caption = entry.caption ?? null;
    const altText = entry.altText ?? null;
    if (stored !== undefined && isUploaded(stored)) {
      if (kept.has(stored.id)) {
        throw Errors.invalidField(`${field}[${index}]`, `names photo ${stored.id} a second time`);
      }
      kept.add(stored.id);
      return { ...stored, caption, altText };
    }
    // The same URL at the same occurrence is the same photo: its probed content type stays (decision 0266).
    const probed = probeOf(byId.get(linkedPhotoId(entry.url, occurrence)) ?? {});
    return altText === null
      ? { url: entry.url, caption, ...probed }
      : { url: entry.url, caption, altText, ...probed };
  });
}

/** A photo given by URL's probe fields (decision 0266), when it has been probed. */
function probeOf(photo: Pick<PropertyPhoto, 'contentType' | 'probedAt'>): Partial<PropertyPhoto> {
  return photo.contentType === undefined
    ? {}
    : {
        contentType: photo.contentType,
        ...(photo.probedAt === undefined ? {} : { probedAt: photo.probedAt }),
      };
}

// Storage keys: listings/<organization>/<listing>/<photo>/<width>.webp (and the widest as .jpg). The photo id is random, so
// a key cannot be guessed from what the portal shows of other photos; the listing's folder lets a
// deleted listing's files go at once.
const ID = '[0-9A-Za-z]{22}';
/** Exactly the keys of uploaded photos' files: GET /media/{key} serves nothing else. */
export const PHOTO_KEY = new RegExp(`^listings/org_${ID}/prop_${ID}/ph_${ID}/[1-9][0-9]{1,4}\\.(webp|jpg)$`);

/** The storage folder of a listing's photos (ends with `/`). */
export function listingFolder(organizationId: string, propertyId: string): string {
  return `listings/${organizationId}/${propertyId}/`;
}

/** The storage folder of one uploaded photo's files (ends with `/`). */
export function photoFolder(organizationId: string, propertyId: string, photoId: string): string {
  return `${listingFolder(organizationId, propertyId)}${photoId}/`;
}

/** The photo id a key of the listing's folder belongs to. */
export function photoIdOfKey(key: string): string | undefined {
  return key.split('/')[3];
}
