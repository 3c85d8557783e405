import sharp, { type Metadata } from 'sharp';
import { AppError, Errors } from '../errors/errors.ts';

/**
 * The photo pipeline (decision 0233), on sharp (libvips): what a file is is decided by decoding its
 * bytes, never by its declared type or name; the output is re-encoded, so nothing of the input's
 * metadata survives (EXIF with GPS, XMP, IPTC, comments: sharp writes none without `keepExif` or
 * `withMetadata`), turned upright by its EXIF orientation first.
 */

/** The formats taken, as sharp's decoders name them. */
export const ACCEPTED_FORMATS = ['jpeg', 'png', 'webp'] as const;
/** The widths made of every photo (those wider than the original are left out: never upscaled; widthsFor). */
export const PHOTO_WIDTHS = [480, 960, 1600] as const;
/** A photo narrower or lower than this, once upright, is refused. */
export const MIN_PHOTO_SIDE = 200;
const WEBP_QUALITY = 80;
/** WebP's largest side (its header holds 14 bits): a size taller or wider cannot be encoded. */
export const WEBP_MAX_SIDE = 16_383;
const JPEG_QUALITY = 82;

export interface ImageLimits {
  /** Most pixels (width × height) a photo may have. */
  maxPixels: number;
  /** The multipart field the bytes came in, for the messages (`body.file`). */
  field: string;
}

export interface InspectedImage {
  format: (typeof ACCEPTED_FORMATS)[number];
  /** Upright (EXIF orientation applied). */
  width: number;
  height: number;
}

export interface RenderedSize {
  width: number;
  height: number;
  bytes: Buffer;
  contentType: 'image/webp' | 'image/jpeg';
}

const unsupported = (field: string, what: string) =>
  new AppError('UNSUPPORTED_MEDIA_TYPE', `${field} ${what}: send a JPEG, PNG or WebP image`, {
    details: [{ field, message: `${what}: send a JPEG, PNG or WebP image` }],
  });

/** Reads the header: the format, by its bytes, and the upright size; 415 or 400 when refused. */
export async function inspectImage(bytes: Buffer, limits: ImageLimits): Promise<InspectedImage> {
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw unsupported(limits.field, 'is not an image');
  }
  const format = metadata.format as string;
  if (!(ACCEPTED_FORMATS as readonly string[]).includes(format)) {
    throw unsupported(limits.field, `is a ${format.toUpperCase()} image`);
  }
  const { width, height } = metadata.autoOrient;
  if (width * height > limits.maxPixels) {
    throw Errors.invalidField(
      limits.field,
      `has ${width}×${height} pixels (${((width * height) / 1e6).toFixed(1)} MP); the limit is ` +
        `${(limits.maxPixels / 1e6).toFixed(0)} MP`,
    );
  }
  if (width < MIN_PHOTO_SIDE || height < MIN_PHOTO_SIDE) {
    throw Errors.invalidField(
      limits.field,
      `is ${width}×${height} pixels; a photo must be at least ${MIN_PHOTO_SIDE} pixels on each side`,
    );
  }
  return { format: format as InspectedImage['format'], width, height };
}

/**
 * The widths made of a photo of `width` × `height` pixels: the PHOTO_WIDTHS narrower than the widest
 * it allows, then that one: its own width, at most the widest of PHOTO_WIDTHS, and narrow enough that
 * its height fits WebP (WEBP_MAX_SIDE): 2000×1500 → 480, 960, 1600; 1000×750 → 480, 960, 1000; 300×300
 * → 300; 1000×17000 (a tall scan) → 480, 960, 963. Never wider than the original.
 */
export function widthsFor(width: number, height: number): number[] {
  const fitsWebp = Math.max(1, Math.floor((WEBP_MAX_SIDE * width) / height));
  const widest = Math.min(width, PHOTO_WIDTHS[PHOTO_WIDTHS.length - 1] as number, fitsWebp);
  return [...PHOTO_WIDTHS.filter((w) => w < widest), widest];
}

/**
 * Decodes the photo, turns it upright and encodes each width as WebP without metadata, then the
 * widest once more as a baseline JPEG (the last entry) for consumers that take no WebP: Kyero's feed
 * accepts only .jpg/.png/.gif addresses. A file whose header read well but whose pixels do not decode
 * (truncated, corrupt) is a 400 naming the field.
 */
export async function renderSizes(
  bytes: Buffer,
  image: InspectedImage,
  limits: ImageLimits,
): Promise<{ sizes: RenderedSize[]; jpeg: RenderedSize }> {
  const render = async (width: number, format: 'webp' | 'jpeg'): Promise<RenderedSize> => {
    try {
      const resized = sharp(bytes, { limitInputPixels: limits.maxPixels })
        .rotate()
        .resize({ width, withoutEnlargement: true });
      const encoded =
        format === 'webp'
          ? resized.webp({ quality: WEBP_QUALITY })
          : resized.flatten({ background: '#ffffff' }).jpeg({ quality: JPEG_QUALITY, mozjpeg: true });
      const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
      return { width: info.width, height: info.height, bytes: data, contentType: `image/${format}` };
    } catch (error) {
      throw new AppError('VALIDATION_ERROR', `${limits.field} could not be decoded as an image`, {
        details: [{ field: limits.field, message: 'could not be decoded as an image' }],
        cause: error,
      });
    }
  };
  const widths = widthsFor(image.width, image.height);
  const sizes: RenderedSize[] = [];
  for (const width of widths) sizes.push(await render(width, 'webp'));
  return { sizes, jpeg: await render(widths[widths.length - 1] as number, 'jpeg') };
}
