// A listing's photos (decision 0233): upload, caption, order, delete. Files are written before the
// transaction that lists the photo commits, and removed if it does not; a deleted photo's files go
// only after its transaction committed. Each change locks the listing's row and records
// property.updated (changes: ["photos"]) in its transaction; the portal version follows by trigger.
import type { Database, Tx } from '../../db/database.ts';
import type { PropertyPhoto } from '../../db/schema.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { inspectImage, renderSizes } from '../../platform/images/images.ts';
import { isId } from '../../platform/ids/ids.ts';
import type { Logger } from '../../platform/logging/logger.ts';
import { storageFor, type StorageSettings } from '../../platform/storage/open-storage.ts';
import type { Storage } from '../../platform/storage/storage.ts';
import { readAs, whenRolledBack, writeAs } from '../../platform/tenancy/caller-tx.ts';
import { PropertyUpdated } from './properties.events.ts';
import {
  findPhoto,
  isUploaded,
  listingFolder,
  MAX_PHOTOS,
  newPhotoId,
  photoFolder,
  photoIdOfKey,
  photoViews,
} from './properties.photos.rules.ts';
import { lockPropertyPhotos, updatePropertyPhotos } from './properties.photos.store.ts';
import type { PhotoView } from './properties.schema.ts';
import { eventProperty, loadListing } from './properties.service.ts';

/** What the photo routes work with: the database, the media storage and its public address. */
export interface PhotoContext {
  db: Database;
  storage: Storage;
  /** Where GET /media/{key} is reached: PUBLIC_URL, else the address the request came to. */
  mediaBaseUrl: string;
  maxPixels: number;
  log: Pick<Logger, 'warn' | 'error'>;
}

export interface PhotoUpload {
  bytes: Buffer;
  caption?: string | null;
  altText?: string | null;
  /** 0-based place in the list; the end by default. */
  position?: number;
}

const FILE_FIELD = 'body.file';

function requireListingId(propertyId: string) {
  if (!isId(propertyId, 'prop')) throw Errors.notFound('Property', propertyId);
}

/** The listing's photos with its row locked, for a change; 404 as for the listing. */
async function lockedPhotos(tx: Tx, organizationId: string, propertyId: string): Promise<PropertyPhoto[]> {
  return (await loadListing(tx, organizationId, propertyId, { lock: true })).property.photos;
}

/** Stores the new list and records property.updated, in the change's transaction. */
async function savePhotos(
  tx: Tx,
  organizationId: string,
  propertyId: string,
  photos: PropertyPhoto[],
  actor: Actor,
) {
  const row = await updatePropertyPhotos(tx, organizationId, propertyId, photos);
  if (!row) throw Errors.notFound('Property', propertyId);
  await recordEvent(tx, {
    type: PropertyUpdated.type,
    data: { property: eventProperty(row), changes: ['photos'] },
    actor,
  });
  return row;
}

/** Removes files, logging (not throwing) what could not go: the change they belonged to is settled. */
async function discardFiles(context: PhotoContext, keys: readonly string[], why: string) {
  for (const key of keys) {
    try {
      await context.storage.delete(key);
    } catch (error) {
      context.log.error(
        { err: error, key },
        `could not delete a photo file (${why}); it stays in the storage`,
      );
    }
  }
}

/** The listing's photos in order. */
export async function listPhotos(db: Database, caller: Caller, propertyId: string): Promise<PhotoView[]> {
  return readAs(db, caller, async (tx) =>
    photoViews((await loadListing(tx, caller.organization.id, propertyId)).property.photos),
  );
}

/**
 * Adds an uploaded photo: checked and rendered (sharp) before the transaction, its files written
 * while the listing's row is locked, deleted again when the transaction fails (also when a request's
 * unit of work rolls it back after it returned). 409 CONFLICT
 * (reason PHOTO_LIMIT) at MAX_PHOTOS; 400 for a position past the end.
 */
export async function uploadPhoto(
  context: PhotoContext,
  caller: Caller,
  propertyId: string,
  upload: PhotoUpload,
): Promise<PhotoView> {
  requireListingId(propertyId);
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  const limits = { maxPixels: context.maxPixels, field: FILE_FIELD };
  const image = await inspectImage(upload.bytes, limits);
  const rendered = await renderSizes(upload.bytes, image, limits);
  const photoId = newPhotoId();
  const folder = photoFolder(organizationId, propertyId, photoId);
  const urlOf = (key: string) => context.storage.publicUrl(key) ?? `${context.mediaBaseUrl}/media/${key}`;
  const written: string[] = [];
  try {
    return await writeAs(context.db, caller, async (tx) => {
      const photos = await lockedPhotos(tx, organizationId, propertyId);
      if (photos.length >= MAX_PHOTOS) {
        throw Errors.conflict(`A listing holds at most ${MAX_PHOTOS} photos; delete one first`, {
          reason: 'PHOTO_LIMIT',
          limit: MAX_PHOTOS,
        });
      }
      // Under an Idempotency-Key the transaction commits with the answer, after this returns.
      whenRolledBack(() => discardFiles(context, written, 'the request did not commit'));
      const position = upload.position ?? photos.length;
      if (position < 0 || position > photos.length) {
        throw Errors.invalidField(
          'body.position',
          `must be between 0 and ${photos.length} (the number of photos)`,
        );
      }
      const sizes = [];
      for (const size of rendered.sizes) {
        const key = `${folder}${size.width}.webp`;
        written.push(key);
        await context.storage.put(key, size.bytes, size.contentType);
        sizes.push({ width: size.width, height: size.height, url: urlOf(key) });
      }
      const jpegKey = `${folder}${rendered.jpeg.width}.jpg`;
      written.push(jpegKey);
      await context.storage.put(jpegKey, rendered.jpeg.bytes, rendered.jpeg.contentType);
      const photo: PropertyPhoto = {
        id: photoId,
        url: sizes[sizes.length - 1]?.url ?? '',
        caption: upload.caption ?? null,
        altText: upload.altText ?? null,
        width: image.width,
        height: image.height,
        sizes,
        jpegUrl: urlOf(jpegKey),
      };
      await savePhotos(
        tx,
        organizationId,
        propertyId,
        [...photos.slice(0, position), photo, ...photos.slice(position)],
        actor,
      );
      return photoViews([photo])[0] as PhotoView;
    });
  } catch (error) {
    await discardFiles(context, written, 'the upload failed');
    throw error;
  }
}

/** Changes a photo's caption or alt text (null clears). 404 for an unknown photo. */
export async function updatePhoto(
  db: Database,
  caller: Caller,
  propertyId: string,
  photoId: string,
  changes: { caption?: string | null; altText?: string | null },
): Promise<PhotoView> {
  requireListingId(propertyId);
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  return writeAs(db, caller, async (tx) => {
    const photos = await lockedPhotos(tx, organizationId, propertyId);
    const found = findPhoto(photos, photoId);
    if (!found) throw Errors.notFound('Photo', photoId);
    const changed: PropertyPhoto = { ...found.photo };
    if (changes.caption !== undefined) changed.caption = changes.caption;
    if (changes.altText !== undefined) changed.altText = changes.altText;
    const list = photos.map((photo, index) => (index === found.index ? changed : photo));
    await savePhotos(tx, organizationId, propertyId, list, actor);
    return photoViews(list)[found.index] as PhotoView;
  });
}

/** Puts the photos in the order given: exactly the listing's photo ids, each once (400 otherwise). */
export async function reorderPhotos(
  db: Database,
  caller: Caller,
  propertyId: string,
  photoIds: readonly string[],
): Promise<PhotoView[]> {
  requireListingId(propertyId);
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  return writeAs(db, caller, async (tx) => {
    const photos = await lockedPhotos(tx, organizationId, propertyId);
    const current = new Map(
      photoViews(photos).map((view, index) => [view.id, photos[index] as PropertyPhoto]),
    );
    const unknown = photoIds.filter((id) => !current.has(id));
    const missing = [...current.keys()].filter((id) => !photoIds.includes(id));
    const repeated = photoIds.filter((id, index) => photoIds.indexOf(id) !== index);
    if (unknown.length + missing.length + repeated.length > 0) {
      const problems = [
        unknown.length > 0 ? `names ${unknown.join(', ')}, not a photo of this listing` : null,
        missing.length > 0 ? `leaves out ${missing.join(', ')}` : null,
        repeated.length > 0 ? `repeats ${[...new Set(repeated)].join(', ')}` : null,
      ].filter((text) => text !== null);
      throw Errors.invalidField(
        'body.photoIds',
        `must list each of the listing's ${current.size} photo ids exactly once; it ${problems.join('; ')}`,
      );
    }
    const ordered = photoIds.map((id) => current.get(id) as PropertyPhoto);
    await savePhotos(tx, organizationId, propertyId, ordered, actor);
    return photoViews(ordered);
  });
}

/** Removes a photo from the listing; an uploaded photo's files are deleted once that committed. */
export async function deletePhoto(
  context: Pick<PhotoContext, 'db' | 'storage' | 'log'>,
  caller: Caller,
  propertyId: string,
  photoId: string,
): Promise<{ id: string; deleted: true }> {
  requireListingId(propertyId);
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  const removed = await writeAs(context.db, caller, async (tx) => {
    const photos = await lockedPhotos(tx, organizationId, propertyId);
    const found = findPhoto(photos, photoId);
    if (!found) throw Errors.notFound('Photo', photoId);
    const rest = photos.filter((_photo, index) => index !== found.index);
    await savePhotos(tx, organizationId, propertyId, rest, actor);
    return found.photo;
  });
  if (isUploaded(removed)) {
    const keys = await context.storage.list(photoFolder(organizationId, propertyId, removed.id));
    await discardFiles(context as PhotoContext, keys, 'its photo was deleted');
  }
  return { id: photoId, deleted: true };
}

/** What sweepListingFiles needs, for the listing routes (v1 and admin) that do not upload. */
export function photoFiles(settings: StorageSettings, db: Database, log: PhotoContext['log']) {
  return { db, storage: storageFor(settings), log };
}

/**
 * After a listing write that may have dropped uploaded photos (an update replacing `photos`, a
 * deletion): deletes the files in the listing's folder that no photo of it names any more. Holds the
 * listing's row lock while it does, so an upload (which writes its files under that lock) is never
 * taken for an orphan. Never throws: the write it follows has committed.
 */
export async function sweepListingFiles(
  context: Pick<PhotoContext, 'db' | 'storage' | 'log'>,
  caller: Caller,
  propertyId: string,
): Promise<void> {
  const organizationId = caller.organization.id;
  try {
    await writeAs(context.db, caller, async (tx) => {
      const photos = isId(propertyId, 'prop')
        ? await lockPropertyPhotos(tx, organizationId, propertyId)
        : null;
      const kept = new Set((photos ?? []).filter(isUploaded).map((photo) => photo.id));
      const keys = await context.storage.list(listingFolder(organizationId, propertyId));
      const orphans = keys.filter((key) => !kept.has(photoIdOfKey(key) ?? ''));
      await discardFiles(context as PhotoContext, orphans, 'no photo of its listing names it');
    });
  } catch (error) {
    context.log.error({ err: error, propertyId }, 'could not sweep the files of a listing');
  }
}
