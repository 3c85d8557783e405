import { originOf } from '../../platform/http/origin.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import fresh from 'fresh';
import type { Config } from '../../config.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { PHOTO_WIDTHS } from '../../platform/images/images.ts';
import { registerSingleFileUpload } from '../../platform/http/multipart.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { DeletedResponseSchema, ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import { storageFor } from '../../platform/storage/open-storage.ts';
import * as photos from './properties.photos.ts';
import { MAX_PHOTOS, PHOTO_KEY } from './properties.photos.rules.ts';
import {
  PhotoListResponseSchema,
  PhotoOrderBodySchema,
  PhotoParamsSchema,
  PhotoResponseSchema,
  PhotoUploadBodySchema,
  UpdatePhotoBodySchema,
} from './properties.photos.schema.ts';
import { PropertyIdParamsSchema } from './properties.schema.ts';

const READ = { auth: { scope: 'listings:read', keyTypes: SECRET_KEYS, write: false } } as const;
// As every listing write (decision 0230): support-approved scope, access level 3.
const WRITE = {
  auth: { scope: 'listings:write', keyTypes: ['secret'], write: true, accessLevel: 3 },
} as const;
const TAGS = ['Listings'];
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Where GET /media/… is reached from outside: PUBLIC_URL, else the address this request came to. */
const mediaBaseUrl = (config: Config, request: FastifyRequest) => originOf(request, config.publicUrl);

const limitsText = (config: Config) =>
  `At most ${config.photoMaxUploadMb} MiB (413 PAYLOAD_TOO_LARGE above, PHOTO_MAX_UPLOAD_MB) and ` +
  `${config.photoMaxMegapixels} megapixels (400, PHOTO_MAX_MEGAPIXELS); ${MAX_PHOTOS} photos per listing ` +
  '(409 CONFLICT, `error.reason` PHOTO_LIMIT).';

/**
 * A listing's photos (decision 0233): upload (multipart), caption and alt text, order, delete, for
 * secret keys with the listing scopes; and GET /media/… serving the files without a key.
 */
export const photosRoutes: FeaturePlugin = async (app, { db, config }) => {
  const storage = storageFor(config);
  app.addHook('onClose', () => storage.close());
  const maxBytes = config.photoMaxUploadMb * 1024 * 1024;
  const maxPixels = config.photoMaxMegapixels * 1_000_000;
  const context = (request: FastifyRequest): photos.PhotoContext => ({
    db,
    storage,
    mediaBaseUrl: mediaBaseUrl(config, request),
    maxPixels,
    log: request.log,
  });

  // The upload alone takes multipart/form-data: its own context holds the parser.
  await app.register(async (instance) => {
    const upload = instance.withTypeProvider<TypeBoxTypeProvider>();
    const readUpload = await registerSingleFileUpload(upload, {
      field: 'file',
      maxBytes,
      textFields: ['caption', 'altText', 'position'],
      integerFields: ['position'],
    });
    upload.post(
      '/v1/listings/:id/photos',
      {
        config: WRITE,
        preValidation: readUpload,
        schema: {
          operationId: 'listings.photos.upload',
          summary: 'Upload a photo',
          description:
            'Secret key with `listings:write`, access level 3. `multipart/form-data` with the file in `file` and ' +
            'optional `caption`, `altText` and `position` fields. The file is taken for what its bytes are: ' +
            'JPEG, PNG or WebP (anything else, whatever its name or declared type, is a 415 ' +
            'UNSUPPORTED_MEDIA_TYPE naming `body.file`), at least 200 pixels on each side. ' +
            limitsText(config) +
            ' The photo is turned upright by its EXIF orientation and re-encoded without any metadata (EXIF, ' +
            `GPS location, XMP are dropped) as WebP ${PHOTO_WIDTHS.join(', ')} pixels wide, never wider than ` +
            'the original (a narrower one has the widths below its own, then its own: `sizes`); `url` is the ' +
            'largest. The files are public (the portal shows them in an ' +
            '`<img>`) at unguessable addresses, cached for a year. Records `property.updated` with `changes: ' +
            '["photos"]`. With an `Idempotency-Key`, the same key and the same file and fields replay the answer; ' +
            'another file is a 409. 404 for a listing of another organization.',
          tags: TAGS,
          consumes: ['multipart/form-data'],
          params: PropertyIdParamsSchema,
          body: PhotoUploadBodySchema,
          response: { 201: PhotoResponseSchema },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const file = request.upload;
        if (file === null) throw Errors.invalidField('body.file', 'is required');
        const photo = await photos.uploadPhoto(context(request), callerOf(request), request.params.id, {
          bytes: file.bytes,
          caption: body.caption,
          altText: body.altText,
          position: body.position,
        });
        return reply.code(201).send({ data: photo });
      },
    );
  });

  app.get(
    '/v1/listings/:id/photos',
    {
      config: READ,
      schema: {
        operationId: 'listings.photos.list',
        summary: "A listing's photos",
        description:
          'Secret or read-only secret key with `listings:read`. The photos in order (the first is the cover), ' +
          'uploaded ones with their sizes, photos given by URL with an id derived from the URL. 404 as for the listing.',
        tags: TAGS,
        params: PropertyIdParamsSchema,
        response: { 200: PhotoListResponseSchema },
      },
    },
    async (request) => ({ data: await photos.listPhotos(db, callerOf(request), request.params.id) }),
  );

  app.patch(
    '/v1/listings/:id/photos/:photoId',
    {
      config: WRITE,
      schema: {
        operationId: 'listings.photos.update',
        summary: "Change a photo's caption or alt text",
        description:
          'Secret key with `listings:write`, access level 3. Only the fields sent change; null clears. Records ' +
          '`property.updated` (`changes: ["photos"]`). 404 for a photo or listing that is not there (or of ' +
          'another organization).',
        tags: TAGS,
        params: PhotoParamsSchema,
        body: UpdatePhotoBodySchema,
        response: { 200: PhotoResponseSchema },
      },
    },
    async (request) => {
      const { id, photoId } = request.params;
      return { data: await photos.updatePhoto(db, callerOf(request), id, photoId, request.body) };
    },
  );

  app.put(
    '/v1/listings/:id/photos/order',
    {
      config: WRITE,
      schema: {
        operationId: 'listings.photos.reorder',
        summary: 'Put the photos in a new order',
        description:
          'Secret key with `listings:write`, access level 3. `photoIds` lists every photo id of the listing ' +
          'exactly once, in the new order; anything else (an unknown id, one left out or repeated) is a 400 ' +
          'naming them. Answers the photos in their new order. Records `property.updated` (`changes: ["photos"]`).',
        tags: TAGS,
        params: PropertyIdParamsSchema,
        body: PhotoOrderBodySchema,
        response: { 200: PhotoListResponseSchema },
      },
    },
    async (request) => ({
      data: await photos.reorderPhotos(db, callerOf(request), request.params.id, request.body.photoIds),
    }),
  );

  app.delete(
    '/v1/listings/:id/photos/:photoId',
    {
      config: WRITE,
      schema: {
        operationId: 'listings.photos.delete',
        summary: 'Delete a photo',
        description:
          'Secret key with `listings:write`, access level 3. Removes the photo from the listing; an uploaded ' +
          "photo's files are deleted from the storage once that is committed (their addresses then answer 404, " +
          'though browsers and CDNs may keep copies they already hold). Records `property.updated`.',
        tags: TAGS,
        params: PhotoParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => {
      const { id, photoId } = request.params;
      return { data: await photos.deletePhoto(context(request), callerOf(request), id, photoId) };
    },
  );

  app.get(
    '/media/listings/:organizationId/:propertyId/:photoId/:file',
    {
      config: { public: true },
      schema: {
        operationId: 'media.get',
        summary: 'A photo file',
        description:
          'No key needed: the portal shows these in `<img>` tags. The addresses come from a photo’s `url` and ' +
          '`sizes` (WebP) and `jpegUrl` (JPEG) and cannot be guessed (each photo id is random). `Cache-Control: ' +
          `${IMMUTABLE}\` (a file never changes; a changed photo is a new one), a strong ETag (304 to a matching ` +
          '`If-None-Match`). 404 for any other path. Served from the storage (STORAGE_DRIVER); with ' +
          'S3_PUBLIC_BASE_URL the photos link to the bucket or CDN instead.',
        tags: ['Portal'],
        params: {
          type: 'object',
          properties: {
            organizationId: { type: 'string', description: 'org_… of the agency' },
            propertyId: { type: 'string', description: 'prop_… of the listing' },
            photoId: {
              type: 'string',
              description: 'ph_… of the photo (random: the address cannot be guessed)',
            },
            file: { type: 'string', description: '`<width>.webp`, or `<width>.jpg` for the widest size' },
          },
          required: ['organizationId', 'propertyId', 'photoId', 'file'],
          additionalProperties: false,
        },
        response: {
          200: {
            description: 'The file: WebP, or JPEG for `jpegUrl`',
            headers: {
              'Cache-Control': { type: 'string', description: IMMUTABLE },
              ETag: { type: 'string', description: 'A strong validator of the file' },
            },
            content: {
              'image/webp': { schema: { type: 'string', format: 'binary' } },
              'image/jpeg': { schema: { type: 'string', format: 'binary' } },
            },
          },
          304: {
            description: 'Not Modified: the file the `If-None-Match` validator names',
            headers: {
              'Cache-Control': { type: 'string', description: IMMUTABLE },
              ETag: { type: 'string', description: 'A strong validator of the file' },
            },
          },
          404: ref(ErrorResponseSchema),
        },
      },
    },
    async (request, reply) => {
      const { organizationId, propertyId, photoId, file } = request.params as Record<string, string>;
      const key = `listings/${organizationId}/${propertyId}/${photoId}/${file}`;
      const object = PHOTO_KEY.test(key) ? await storage.get(key) : null;
      if (!object) throw Errors.notFound('Media file');
      reply
        .header('cache-control', IMMUTABLE)
        .header('etag', object.etag)
        .header('x-content-type-options', 'nosniff');
      if (fresh({ 'if-none-match': request.headers['if-none-match'] }, { etag: object.etag })) {
        object.body.destroy();
        return reply.code(304).send('');
      }
      reply.type(object.contentType).header('content-length', object.size);
      // A stream is sent as it is (no serializer), whatever the schema's types say.
      return reply.send(object.body as never);
    },
  );
};
