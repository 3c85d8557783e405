/**
 * A listing's photos (issue 25 item 3, decision 0233): uploads over HTTP in JPEG, PNG and WebP made
 * here with sharp, refused files (not an image, another format, too large, too many or too few
 * pixels), EXIF/GPS stripped and orientation applied (read back through the public media route),
 * sizes never upscaled, caption and alt text, order, deletion (files gone), the portal's URLs, the
 * listing writes that keep or drop uploads, idempotency, scopes and tenant isolation; the local
 * disk driver in a temporary folder and the S3 driver against an S3 emulator (s3rver).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import S3rver from 's3rver';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { photoForm as form, rawForm } from '../../helpers/photo-form.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { eventsOf } from '../contacts/support.ts';

interface Size {
  width: number;
  height: number;
  url: string;
}
interface Photo {
  id: string;
  url: string;
  caption: string | null;
  altText: string | null;
  width?: number;
  height?: number;
  sizes?: Size[];
  jpegUrl?: string;
}

const storageDir = mkdtempSync(join(tmpdir(), 'agency-photos-'));
let app: FastifyInstance;
let agency: SpanishAgency;
let other: SpanishAgency;
let sequence = 0;

const solid = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } });
const jpeg = (width: number, height: number) => solid(width, height).jpeg().toBuffer();

async function upload(
  listingId: string,
  bytes: Buffer,
  options: {
    fields?: Record<string, string>;
    name?: string;
    type?: string;
    key?: string;
    target?: FastifyInstance;
    headers?: Record<string, string>;
  } = {},
): Promise<LightMyRequestResponse> {
  const body = await form(options.fields ?? {}, {
    bytes,
    name: options.name ?? 'photo.jpg',
    type: options.type ?? 'image/jpeg',
  });
  return api(options.target ?? app, 'POST', `/v1/listings/${listingId}/photos`, {
    key: options.key ?? agency.secret.key,
    headers: { 'content-type': body.contentType, ...(options.headers ?? {}) },
    body: body.payload,
  });
}

async function uploaded(
  listingId: string,
  bytes: Buffer,
  fields: Record<string, string> = {},
): Promise<Photo> {
  return expectStatus(await upload(listingId, bytes, { fields }), 201).data as Photo;
}

async function listing(
  owner: SpanishAgency = agency,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  sequence += 1;
  const response = await api(app, 'POST', '/v1/listings', {
    key: owner.secret.key,
    body: {
      code: `PH-${Date.now().toString(36)}-${sequence}`,
      title: `Flat with photos ${sequence}`,
      transactionType: 'SALE',
      type: 'APARTMENT',
      price: 200000,
      city: 'Málaga',
      ...overrides,
    },
  });
  return (expectStatus(response, 201).data as { id: string }).id;
}

const photosOf = async (listingId: string, key = agency.secret.key) =>
  expectStatus(await api(app, 'GET', `/v1/listings/${listingId}/photos`, { key }), 200).data as Photo[];

/** GET /media/… of a photo URL, without a key, as an `<img>` would. */
const media = (url: string, headers: Record<string, string> = {}, target = app) =>
  target.inject({ method: 'GET', url: new URL(url).pathname, headers });

async function mediaMetadata(url: string) {
  const response = await media(url);
  expect(response.statusCode, response.body).toBe(200);
  return sharp(response.rawPayload).metadata();
}

const filesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());

beforeAll(async () => {
  app = await buildTestApp({ STORAGE_DIR: storageDir, PHOTO_MAX_UPLOAD_MB: '2', PHOTO_MAX_MEGAPIXELS: '6' });
  agency = await createTenant(app, SPANISH_AGENCY);
  other = await createTenant(app, SPANISH_AGENCY);
});

afterAll(async () => {
  await app.close();
  rmSync(storageDir, { recursive: true, force: true });
});

describe('uploading photos', () => {
  it('takes a JPEG, PNG and WebP, renders WebP sizes never wider than the original, and serves them publicly', async () => {
    const id = await listing();
    const wide = await uploaded(id, await solid(2000, 1000).webp().toBuffer(), { caption: 'Terrace' });
    expect(wide).toMatchObject({ caption: 'Terrace', altText: null, width: 2000, height: 1000 });
    expect(wide.id).toMatch(/^ph_[0-9A-Za-z]{22}$/);
    expect(wide.sizes?.map((s) => [s.width, s.height])).toEqual([
      [480, 240],
      [960, 480],
      [1600, 800],
    ]);
    expect(wide.url).toBe(wide.sizes?.[2]?.url);
    expect(wide.url).toMatch(
      /^http:\/\/localhost(:80)?\/media\/listings\/org_\w{22}\/prop_\w{22}\/ph_\w{22}\/1600\.webp$/,
    );

    // Between two widths: the original's width is the largest size (not 960, not an upscaled 1600).
    const medium = await uploaded(id, await solid(1000, 700).png().toBuffer());
    expect(medium.sizes?.map((s) => [s.width, s.height])).toEqual([
      [480, 336],
      [960, 672],
      [1000, 700],
    ]);
    const narrow = await uploaded(id, await jpeg(300, 400), { altText: 'A narrow window' });
    // Narrower than the smallest width: one size, the original's, not upscaled.
    expect(narrow.sizes).toEqual([{ width: 300, height: 400, url: narrow.url }]);
    expect(narrow.altText).toBe('A narrow window');

    for (const photo of [wide, medium, narrow]) {
      for (const size of photo.sizes ?? []) {
        const response = await media(size.url);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers['content-type']).toBe('image/webp');
        expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(response.headers.etag).toMatch(/^".+"$/);
        const metadata = await sharp(response.rawPayload).metadata();
        expect([metadata.format, metadata.width, metadata.height]).toEqual(['webp', size.width, size.height]);
      }
    }
    // The widest size once more as a JPEG, for consumers that take no WebP (Kyero).
    for (const [photo, width, height] of [
      [wide, 1600, 800],
      [medium, 1000, 700],
      [narrow, 300, 400],
    ] as const) {
      expect(photo.jpegUrl).toBe(photo.url.replace(/\.webp$/, '.jpg'));
      const response = await media(photo.jpegUrl as string);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toBe('image/jpeg');
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const metadata = await sharp(response.rawPayload).metadata();
      expect([metadata.format, metadata.width, metadata.height]).toEqual(['jpeg', width, height]);
    }
    expect((await photosOf(id)).map((p) => p.id)).toEqual([wide.id, medium.id, narrow.id]);
    // The local driver keeps them under STORAGE_DIR: 3 + 3 + 1 WebP sizes and 3 JPEGs.
    expect(filesUnder(storageDir).length).toBeGreaterThanOrEqual(10);
  });

  it('renders an image taller than WebP allows (16,383 px) at widths whose height fits', async () => {
    const id = await listing();
    // 300 × 17,000 (5.1 MP, under this app's 6 MP): at its own width WebP could not hold the height.
    const tall = await uploaded(id, await solid(300, 17_000).png().toBuffer());
    expect(tall).toMatchObject({ width: 300, height: 17_000 });
    expect(tall.sizes?.map((s) => [s.width, s.height])).toEqual([[289, 16_377]]);
    for (const url of [tall.url, tall.jpegUrl as string]) {
      const response = await media(url);
      expect(response.statusCode, response.body).toBe(200);
      const metadata = await sharp(response.rawPayload).metadata();
      expect([metadata.width, metadata.height]).toEqual([289, 16_377]);
    }
  });

  it('strips EXIF and GPS, and turns the photo upright by its EXIF orientation', async () => {
    const original = await solid(600, 400)
      .jpeg()
      .withExif({
        IFD0: { Make: 'PhoneCo', Model: 'Camera 9' },
        IFD3: {
          GPSLatitudeRef: 'N',
          GPSLatitude: '40/1 25/1 0/1',
          GPSLongitudeRef: 'W',
          GPSLongitude: '3/1 42/1 0/1',
        },
      })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const input = await sharp(original).metadata();
    expect(input.orientation).toBe(6);
    expect(input.exif?.includes(Buffer.from('PhoneCo'))).toBe(true);
    // The GPS IFD pointer (tag 0x8825, either byte order) and the latitude 40/1 are in the input.
    const gpsTag = [Buffer.from([0x88, 0x25]), Buffer.from([0x25, 0x88])];
    expect(gpsTag.some((tag) => input.exif?.includes(tag))).toBe(true);

    const photo = await uploaded(await listing(), original);
    // Orientation 6 is a quarter turn: the upright photo is 400 × 600.
    expect([photo.width, photo.height]).toEqual([400, 600]);
    for (const url of [...(photo.sizes ?? []).map((size) => size.url), photo.jpegUrl as string]) {
      const metadata = await mediaMetadata(url);
      expect(metadata.exif, 'no EXIF (and so no GPS) in the served file').toBeUndefined();
      expect(metadata.xmp).toBeUndefined();
      expect(metadata.iptc).toBeUndefined();
      expect(metadata.orientation).toBeUndefined();
      expect(metadata.height).toBeGreaterThan(metadata.width);
    }
  });

  it('inserts at `position` and records property.updated with changes ["photos"]', async () => {
    const id = await listing();
    const first = await uploaded(id, await jpeg(400, 300));
    const cover = await uploaded(id, await jpeg(400, 300), { position: '0' });
    expect((await photosOf(id)).map((p) => p.id)).toEqual([cover.id, first.id]);
    const updates = (await eventsOf(agency.org.id, ['property.updated'])).filter(
      (event) => (event.data as { property: { id: string } }).property.id === id,
    );
    expect(updates.map((event) => (event.data as { changes: string[] }).changes)).toEqual([
      ['photos'],
      ['photos'],
    ]);
    expectError(
      await upload(id, await jpeg(400, 300), { fields: { position: '3' } }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await upload(id, await jpeg(400, 300), { fields: { position: 'first' } }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('replays an upload with the same Idempotency-Key and file, and refuses another file under it', async () => {
    const id = await listing();
    const bytes = await jpeg(500, 300);
    const headers = { 'idempotency-key': `photo-${id}` };
    const first = expectStatus(await upload(id, bytes, { headers }), 201).data as Photo;
    const again = await upload(id, bytes, { headers });
    expect(expectStatus(again, 201).data).toEqual(first);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expectError(await upload(id, await jpeg(501, 300), { headers }), 409, 'DUPLICATE');
    expect(await photosOf(id)).toHaveLength(1);
  });

  it('keeps non-ASCII text fields as sent (UTF-8), with or without a declared charset', async () => {
    const id = await listing();
    const caption = 'Salón con vistas ☀';
    const altText = 'Terraza al mar 🌊, ñandú';
    const photo = await uploaded(id, await jpeg(400, 300), { caption, altText });
    expect([photo.caption, photo.altText]).toEqual([caption, altText]);
    const declared = rawForm([
      { name: 'caption', bytes: Buffer.from(caption), type: 'text/plain; charset=utf-8' },
      { name: 'file', bytes: await jpeg(400, 300), filename: 'photo.jpg', type: 'image/jpeg' },
    ]);
    const response = await api(app, 'POST', `/v1/listings/${id}/photos`, {
      key: agency.secret.key,
      headers: { 'content-type': declared.contentType },
      body: declared.payload,
    });
    expect((expectStatus(response, 201).data as Photo).caption).toBe(caption);
    expect((await photosOf(id)).map((p) => [p.caption, p.altText])).toEqual([
      [caption, altText],
      [caption, null],
    ]);
  });

  it('shows the uploaded photos on the portal, with their sizes', async () => {
    const id = await listing();
    const photo = await uploaded(id, await jpeg(1000, 800), { caption: 'Kitchen', altText: 'Open kitchen' });
    const portal = expectStatus(
      await api(app, 'GET', `/v1/properties/${id}`, { key: agency.publishable.key }),
      200,
    ).data as { photos: Photo[] };
    expect(portal.photos).toEqual([photo]);
    expect((await media(portal.photos[0]?.url as string)).statusCode).toBe(200);
  });
});

describe('refused uploads', () => {
  let id: string;
  beforeAll(async () => {
    id = await listing();
  });

  it('refuses a file that is not an image, whatever its name and declared type: 415 naming body.file', async () => {
    const error = expectError(
      await upload(id, Buffer.from('this is plain text, not a JPEG at all\n'.repeat(20))),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect(error.message).toContain('body.file');
    expect(error.details).toEqual([{ field: 'body.file', message: expect.stringContaining('not an image') }]);
  });

  it('refuses an image in another format (GIF): 415', async () => {
    const gif = await solid(300, 300).gif().toBuffer();
    const error = expectError(
      await upload(id, gif, { name: 'photo.png', type: 'image/png' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect(error.message).toMatch(/body\.file is a GIF image/);
  });

  it('refuses a file over PHOTO_MAX_UPLOAD_MB: 413, whether announced or streamed', async () => {
    // Announced: Content-Length alone tells.
    const big = expectError(await upload(id, Buffer.alloc(3 * 1024 * 1024, 7)), 413, 'PAYLOAD_TOO_LARGE');
    expect(big.message).toContain('body.file is larger than the 2 MiB limit');
    // Just over the limit: found while reading, never buffered past it.
    const over = expectError(
      await upload(id, Buffer.alloc(2 * 1024 * 1024 + 10, 7)),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expect(over.message).toContain('body.file');
  });

  it('refuses too many pixels (PHOTO_MAX_MEGAPIXELS) and too few: 400 naming body.file', async () => {
    // 3000 × 2500 = 7.5 MP over the 6 MP of this app: a small file of uniform colour.
    const huge = await solid(3000, 2500).png().toBuffer();
    expect(expectError(await upload(id, huge), 400, 'VALIDATION_ERROR').message).toMatch(
      /body\.file has 3000×2500 pixels/,
    );
    const tiny = expectError(await upload(id, await jpeg(150, 400)), 400, 'VALIDATION_ERROR');
    expect(tiny.details?.[0]?.field).toBe('body.file');
  });

  it('refuses a JSON body (415), a form without a file (400), unknown fields (400), a text `file` (400)', async () => {
    expectError(
      await api(app, 'POST', `/v1/listings/${id}/photos`, {
        key: agency.secret.key,
        body: { url: 'https://x.example/a.jpg' },
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    const noFile = await form({ caption: 'nothing attached' });
    const missing = await api(app, 'POST', `/v1/listings/${id}/photos`, {
      key: agency.secret.key,
      headers: { 'content-type': noFile.contentType },
      body: noFile.payload,
    });
    expect(expectError(missing, 400, 'VALIDATION_ERROR').message).toContain('file');
    const unknown = expectError(
      await upload(id, await jpeg(300, 300), { fields: { title: 'x' } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(unknown.message).toContain('title');
    const textFile = await form({ file: 'not a file part' });
    const text = await api(app, 'POST', `/v1/listings/${id}/photos`, {
      key: agency.secret.key,
      headers: { 'content-type': textFile.contentType },
      body: textFile.payload,
    });
    expect(expectError(text, 400, 'VALIDATION_ERROR').message).toContain('body.file');
    expect(await photosOf(id)).toEqual([]);
  });

  it('refuses text fields as JSON bodies are: not UTF-8 or holding NUL, 400 naming the field; nothing stored', async () => {
    const photo = await jpeg(300, 300);
    const send = (parts: Parameters<typeof rawForm>[0]) => {
      const body = rawForm([
        ...parts,
        { name: 'file', bytes: photo, filename: 'photo.jpg', type: 'image/jpeg' },
      ]);
      return api(app, 'POST', `/v1/listings/${id}/photos`, {
        key: agency.secret.key,
        headers: { 'content-type': body.contentType },
        body: body.payload,
      });
    };
    // "Salón" in Latin-1: 0xF3 alone is not UTF-8 (read as UTF-8, it would be stored as U+FFFD).
    const latin1 = Buffer.from('Salón', 'latin1');
    for (const type of [undefined, 'text/plain; charset=utf-8', 'text/plain; charset=iso-8859-1']) {
      const error = expectError(
        await send([{ name: 'caption', bytes: latin1, type }]),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.message, `declared: ${type}`).toBe('body.caption is not valid UTF-8');
      expect(error.details).toEqual([{ field: 'body.caption', message: 'is not valid UTF-8' }]);
    }
    // A truncated sequence (the first two bytes of "☀"), in the second text field.
    const cut = Buffer.from('☀').subarray(0, 2);
    const altText = expectError(
      await send([
        { name: 'caption', bytes: Buffer.from('Fine') },
        { name: 'altText', bytes: cut },
      ]),
      400,
      'VALIDATION_ERROR',
    );
    expect(altText.message).toBe('body.altText is not valid UTF-8');
    const nul = expectError(
      await send([{ name: 'caption', bytes: Buffer.from('Sal\u0000ón') }]),
      400,
      'VALIDATION_ERROR',
    );
    expect(nul.message).toBe('body.caption must not contain NUL (U+0000) characters');
    const long = expectError(
      await send([{ name: 'caption', bytes: Buffer.alloc(4097, 'a') }]),
      400,
      'VALIDATION_ERROR',
    );
    expect(long.message).toBe('body.caption must not be longer than 4096 bytes');
    const twoFiles = expectError(
      await send([{ name: 'file', bytes: photo, filename: 'first.jpg', type: 'image/jpeg' }]),
      400,
      'VALIDATION_ERROR',
    );
    expect(twoFiles.message).toBe('body must hold one file, in the field `file`');
    const many = Array.from({ length: 8 }, (_v, n) => ({ name: `extra${n}`, bytes: Buffer.from('x') }));
    expect(expectError(await send(many), 400, 'VALIDATION_ERROR').message).toBe(
      'body has more fields than caption, altText, position and one file',
    );
    // A field the form does not take is refused by its name, whatever its bytes.
    const unknown = expectError(await send([{ name: 'title', bytes: latin1 }]), 400, 'VALIDATION_ERROR');
    expect(unknown.details?.[0]?.field).toBe('body.title');
    expect(await photosOf(id)).toEqual([]);
  });

  it('refuses the 51st photo: 409 CONFLICT, reason PHOTO_LIMIT', async () => {
    const photos = Array.from({ length: 50 }, (_v, n) => ({
      url: `https://images.example.com/full-${n}.jpg`,
    }));
    const full = await listing(agency, { photos });
    const response = await upload(full, await jpeg(300, 300));
    const error = expectError(response, 409, 'CONFLICT') as { reason?: string };
    expect(error.reason).toBe('PHOTO_LIMIT');
  });
});

describe('caption, order and deletion', () => {
  it('changes caption and alt text, null clears', async () => {
    const id = await listing();
    const photo = await uploaded(id, await jpeg(400, 300), { caption: 'Hall' });
    const changed = expectStatus(
      await api(app, 'PATCH', `/v1/listings/${id}/photos/${photo.id}`, {
        key: agency.secret.key,
        body: { altText: 'Entrance hall with a mirror', caption: null },
      }),
      200,
    ).data as Photo;
    expect(changed).toEqual({ ...photo, caption: null, altText: 'Entrance hall with a mirror' });
    expect((await photosOf(id))[0]).toEqual(changed);
    expectError(
      await api(app, 'PATCH', `/v1/listings/${id}/photos/${photo.id}`, { key: agency.secret.key, body: {} }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await api(app, 'PATCH', `/v1/listings/${id}/photos/ph_0000000000000000000000`, {
        key: agency.secret.key,
        body: { caption: 'x' },
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('reorders with the full list of ids (photos given by URL have ids too); any other list is a 400', async () => {
    const id = await listing(agency, {
      photos: [{ url: 'https://images.example.com/street.jpg', caption: 'Street' }],
    });
    const a = await uploaded(id, await jpeg(400, 300));
    const b = await uploaded(id, await jpeg(400, 300));
    const linked = (await photosOf(id))[0] as Photo;
    expect(linked).toEqual({
      id: expect.stringMatching(/^ph_\w{22}$/),
      url: 'https://images.example.com/street.jpg',
      caption: 'Street',
      altText: null,
    });
    const order = (photoIds: string[]) =>
      api(app, 'PUT', `/v1/listings/${id}/photos/order`, { key: agency.secret.key, body: { photoIds } });
    const reordered = expectStatus(await order([b.id, linked.id, a.id]), 200).data as Photo[];
    expect(reordered.map((p) => p.id)).toEqual([b.id, linked.id, a.id]);
    expect((await photosOf(id)).map((p) => p.id)).toEqual([b.id, linked.id, a.id]);

    const missing = expectError(await order([b.id, a.id]), 400, 'VALIDATION_ERROR');
    expect(missing.message).toContain(`leaves out ${linked.id}`);
    const repeated = expectError(await order([b.id, a.id, a.id]), 400, 'VALIDATION_ERROR');
    expect(repeated.message).toContain('repeats');
    const unknown = expectError(
      await order([b.id, linked.id, 'ph_0000000000000000000000']),
      400,
      'VALIDATION_ERROR',
    );
    expect(unknown.details?.[0]?.field).toBe('body.photoIds');
    expect((await photosOf(id)).map((p) => p.id)).toEqual([b.id, linked.id, a.id]);
  });

  it('deletes a photo, then its files (the media route answers 404)', async () => {
    const id = await listing();
    const keep = await uploaded(id, await jpeg(1000, 600));
    const gone = await uploaded(id, await jpeg(1000, 600));
    const deleted = await api(app, 'DELETE', `/v1/listings/${id}/photos/${gone.id}`, {
      key: agency.secret.key,
    });
    expect(expectStatus(deleted, 200).data).toEqual({ id: gone.id, deleted: true });
    for (const size of gone.sizes ?? []) expectError(await media(size.url), 404, 'NOT_FOUND');
    expectError(await media(gone.jpegUrl as string), 404, 'NOT_FOUND');
    for (const size of keep.sizes ?? []) expect((await media(size.url)).statusCode).toBe(200);
    expect((await photosOf(id)).map((p) => p.id)).toEqual([keep.id]);
    expectError(
      await api(app, 'DELETE', `/v1/listings/${id}/photos/${gone.id}`, { key: agency.secret.key }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('listing writes and uploaded photos', () => {
  it('keeps uploads through other changes and through a photos list naming them; drops (and deletes) the rest', async () => {
    const id = await listing();
    const a = await uploaded(id, await jpeg(600, 400));
    const b = await uploaded(id, await jpeg(600, 400));
    // Another field: the photos stay exactly as they were.
    const repriced = expectStatus(
      await api(app, 'PATCH', `/v1/listings/${id}`, { key: agency.secret.key, body: { price: 190000 } }),
      200,
    ).data as { photos: Photo[] };
    expect(repriced.photos).toEqual([a, b]);
    // A new list: `b` named by id (with what GET answered), a photo by URL; `a` left out.
    const replaced = expectStatus(
      await api(app, 'PATCH', `/v1/listings/${id}`, {
        key: agency.secret.key,
        body: { photos: [{ url: 'https://images.example.com/garden.jpg' }, { ...b, caption: 'Bedroom' }] },
      }),
      200,
    ).data as { photos: Photo[] };
    expect(replaced.photos[1]).toEqual({ ...b, caption: 'Bedroom' });
    expect(replaced.photos[0]).toMatchObject({ url: 'https://images.example.com/garden.jpg', caption: null });
    for (const size of a.sizes ?? []) expectError(await media(size.url), 404, 'NOT_FOUND');
    for (const size of b.sizes ?? []) expect((await media(size.url)).statusCode).toBe(200);
    // An id the listing does not have is a 400.
    const error = expectError(
      await api(app, 'PATCH', `/v1/listings/${id}`, {
        key: agency.secret.key,
        body: { photos: [{ id: a.id, url: a.url }] },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details?.[0]?.field).toBe('body.photos[0].id');
  });

  it("deleting a listing deletes its photos' files (v1 and admin API)", async () => {
    const viaApi = await listing();
    const one = await uploaded(viaApi, await jpeg(500, 500));
    expectStatus(await api(app, 'DELETE', `/v1/listings/${viaApi}`, { key: agency.secret.key }), 200);
    expectError(await media(one.url), 404, 'NOT_FOUND');
    const viaAdmin = await listing();
    const two = await uploaded(viaAdmin, await jpeg(500, 500));
    expectStatus(
      await admin(app, 'DELETE', `/admin/v1/organizations/${agency.org.id}/properties/${viaAdmin}`),
      200,
    );
    expectError(await media(two.url), 404, 'NOT_FOUND');
  });
});

describe('the media route', () => {
  it('answers 304 to a matching If-None-Match, 404 to unknown or malformed keys (no traversal)', async () => {
    const photo = await uploaded(await listing(), await jpeg(400, 400));
    const first = await media(photo.url);
    expect(first.headers['content-length']).toBe(String(first.rawPayload.length));
    const head = await app.inject({ method: 'HEAD', url: new URL(photo.url).pathname });
    expect([head.statusCode, head.headers['content-type'], head.rawPayload.length]).toEqual([
      200,
      'image/webp',
      0,
    ]);
    const again = await media(photo.url, { 'if-none-match': first.headers.etag as string });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    const path = new URL(photo.url).pathname;
    for (const url of [
      path.replace(/\/ph_\w{22}\//, '/ph_0000000000000000000000/'),
      path.replace('.webp', '.png'),
      path.replace('.webp', '.jpeg'),
      path.replace(/\d+\.webp$/, '..%2F..%2F..%2Fsecrets.key'),
      '/media/listings/..%2F..%2F/x/y/z',
      '/media/listings/org_x/prop_y/ph_z/480.webp',
    ]) {
      expectError(await app.inject({ method: 'GET', url }), 404, 'NOT_FOUND');
    }
  });
});

describe('keys and tenants', () => {
  it('needs listings:write to change photos (403) and listings:read to list them', async () => {
    const id = await listing();
    const readOnly = (
      await createApiKey(app, agency.org.id, { type: 'secret', scopes: ['listings:read'], accessLevel: 3 })
    ).key;
    expectError(await upload(id, await jpeg(300, 300), { key: readOnly }), 403, 'FORBIDDEN');
    expectError(await upload(id, await jpeg(300, 300), { key: agency.publishable.key }), 403, 'FORBIDDEN');
    expect(await photosOf(id, readOnly)).toEqual([]);
  });

  it("another agency can neither list, upload, change, reorder nor delete a listing's photos: 404", async () => {
    const id = await listing();
    const photo = await uploaded(id, await jpeg(400, 300));
    const key = other.secret.key;
    expectError(await api(app, 'GET', `/v1/listings/${id}/photos`, { key }), 404, 'NOT_FOUND');
    expectError(await upload(id, await jpeg(400, 300), { key }), 404, 'NOT_FOUND');
    expectError(
      await api(app, 'PATCH', `/v1/listings/${id}/photos/${photo.id}`, { key, body: { caption: 'mine' } }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await api(app, 'PUT', `/v1/listings/${id}/photos/order`, { key, body: { photoIds: [photo.id] } }),
      404,
      'NOT_FOUND',
    );
    expectError(await api(app, 'DELETE', `/v1/listings/${id}/photos/${photo.id}`, { key }), 404, 'NOT_FOUND');
    expect(await photosOf(id)).toEqual([photo]);
  });
});

describe('the in-memory and S3 drivers', () => {
  it('keeps photos in memory with DATA_DIR=memory:// and no STORAGE_DIR', async () => {
    const memoryApp = await buildTestApp();
    try {
      const owner = await createTenant(memoryApp, SPANISH_AGENCY);
      sequence += 1;
      const created = await api(memoryApp, 'POST', '/v1/listings', {
        key: owner.secret.key,
        body: {
          code: `MEM-${sequence}`,
          title: 'In memory',
          transactionType: 'RENT',
          type: 'HOUSE',
          price: 900,
          city: 'Cádiz',
        },
      });
      const id = (expectStatus(created, 201).data as { id: string }).id;
      const photo = expectStatus(
        await upload(id, await jpeg(500, 400), { key: owner.secret.key, target: memoryApp }),
        201,
      ).data as Photo;
      expect((await media(photo.url, {}, memoryApp)).statusCode).toBe(200);
      // Another app (another configuration) has its own storage.
      expect((await media(photo.url)).statusCode).toBe(404);
    } finally {
      await memoryApp.close();
    }
  });

  it('stores, serves and deletes photos in an S3-compatible bucket (s3rver), linking to S3_PUBLIC_BASE_URL', async () => {
    const bucketDir = mkdtempSync(join(tmpdir(), 'agency-s3-'));
    const server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: bucketDir,
      configureBuckets: [{ name: 'agency-media', configs: [] }],
    });
    const { port } = await server.run();
    const s3 = {
      STORAGE_DRIVER: 's3',
      S3_BUCKET: 'agency-media',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_REGION: 'eu-west-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    };
    const s3App = await buildTestApp(s3);
    const cdnApp = await buildTestApp({ ...s3, S3_PUBLIC_BASE_URL: 'https://cdn.example.com/agency-media/' });
    try {
      const owner = await createTenant(s3App, SPANISH_AGENCY);
      sequence += 1;
      const created = await api(s3App, 'POST', '/v1/listings', {
        key: owner.secret.key,
        body: {
          code: `S3-${sequence}`,
          title: 'On S3',
          transactionType: 'SALE',
          type: 'VILLA',
          price: 1e6,
          city: 'Marbella',
        },
      });
      const id = (expectStatus(created, 201).data as { id: string }).id;
      const photo = expectStatus(
        await upload(id, await jpeg(1200, 800), { key: owner.secret.key, target: s3App }),
        201,
      ).data as Photo;
      const served = await media(photo.url, {}, s3App);
      expect(served.statusCode, served.body).toBe(200);
      expect(served.headers['content-type']).toBe('image/webp');
      expect((await sharp(served.rawPayload).metadata()).width).toBe(1200);
      // Through the S3 API itself: the object carries its type and the long-lived cache header.
      const direct = await fetch(
        `http://127.0.0.1:${port}/agency-media/${new URL(photo.url).pathname.slice('/media/'.length)}`,
      );
      expect(direct.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');

      const viaCdn = expectStatus(
        await upload(id, await jpeg(600, 400), { key: owner.secret.key, target: cdnApp }),
        201,
      ).data as Photo;
      expect(viaCdn.url).toMatch(
        /^https:\/\/cdn\.example\.com\/agency-media\/listings\/org_\w{22}\/prop_\w{22}\/ph_\w{22}\/600\.webp$/,
      );

      expectStatus(
        await api(s3App, 'DELETE', `/v1/listings/${id}/photos/${photo.id}`, { key: owner.secret.key }),
        200,
      );
      expectError(await media(photo.url, {}, s3App), 404, 'NOT_FOUND');
      expectStatus(await api(s3App, 'DELETE', `/v1/listings/${id}`, { key: owner.secret.key }), 200);
      const key = viaCdn.url.slice('https://cdn.example.com/agency-media/'.length);
      expectError(await media(`http://localhost/media/${key}`, {}, s3App), 404, 'NOT_FOUND');
    } finally {
      await s3App.close();
      await cdnApp.close();
      await server.close();
      rmSync(bucketDir, { recursive: true, force: true });
    }
  });
});
