// The photo routes' schemas (/v1/listings/{id}/photos, decision 0233). The photo itself is
// PropertyPhoto (properties.schema.ts), the element of every view's `photos`.
import { Type, type Static } from '@fastify/type-provider-typebox';
import { DataOf, ref } from '../../platform/http/schemas.ts';
import { MIN_PHOTO_SIDE } from '../../platform/images/images.ts';
import { PhotoSchema } from './properties.schema.ts';

const NullableText = (maxLength: number, description: string) =>
  Type.Union([Type.String({ maxLength }), Type.Null()], { description });

const CAPTION = 'Shown with the photo; null or absent: none';
const ALT_TEXT = 'The `alt` text of the photo for screen readers; null or absent: none';

/**
 * The multipart form of an upload. The file arrives as a file part and is validated by decoding it;
 * what the route's validation sees in `file` is the SHA-256 of its bytes (platform/http/multipart.ts).
 */
export const PhotoUploadBodySchema = Type.Object(
  {
    file: Type.String({
      format: 'binary',
      description: `The photo: a JPEG, PNG or WebP file (decided by its bytes), at least ${MIN_PHOTO_SIDE} pixels on each side`,
    }),
    caption: Type.Optional(
      Type.String({ maxLength: 300, description: 'Shown with the photo', examples: ['Living room'] }),
    ),
    altText: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'The `alt` text of the photo for screen readers',
        examples: ['Bright living room with a sofa facing a window onto the sea'],
      }),
    ),
    position: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: '0-based place in the listing’s photos (0 = first, the cover); default: last',
        examples: [0],
      }),
    ),
  },
  { additionalProperties: false },
);

export const PhotoParamsSchema = Type.Object(
  { id: Type.String(), photoId: Type.String({ description: 'ph_… of a photo of the listing' }) },
  { additionalProperties: false },
);

export const UpdatePhotoBodySchema = Type.Object(
  {
    caption: Type.Optional(NullableText(300, CAPTION)),
    altText: Type.Optional(NullableText(500, ALT_TEXT)),
  },
  { $id: 'UpdatePhotoBody', additionalProperties: false, minProperties: 1 },
);
export type UpdatePhotoBody = Static<typeof UpdatePhotoBodySchema>;

export const PhotoOrderBodySchema = Type.Object(
  {
    photoIds: Type.Array(
      Type.String({ pattern: '^ph_[0-9A-Za-z]{22}$', examples: ['ph_0VhJ3kQ2Zt8mX1pR4sT6uE'] }),
      {
        maxItems: 50,
        description: 'Every photo id of the listing, each once, in the new order (the first is the cover)',
      },
    ),
  },
  { $id: 'PhotoOrderBody', additionalProperties: false },
);

export const PhotoResponseSchema = DataOf(ref(PhotoSchema));
export const PhotoListResponseSchema = DataOf(Type.Array(ref(PhotoSchema)), {
  description: 'The listing’s photos in order (at most 50: no pages)',
});

export const photosSchemas = [UpdatePhotoBodySchema, PhotoOrderBodySchema];
