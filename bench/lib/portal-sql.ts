/**
 * The portal's view of a property, written by hand for the SQL baselines (`properties-sql-server.ts`,
 * `detail-sql-server.ts`): the columns a portal answer needs, with the listing agent's card from a
 * left join and the organization's settings from its row, and the mapping of one row to the JSON the
 * API documents (PortalProperty), members in the order the service's serializer (fast-json-stringify,
 * from the response schema) writes them: the schema's required members in its order, then its optional
 * ones. What the portal shows, as the API documents it:
 * - `previousPrice` only where the organization shows price drops (`show_price_drops`);
 * - title and description in the language asked (`lang`) when the organization serves it and the
 *   listing has a translation in it, else the listing's own, in the organization's default language;
 *   `language` says which;
 * - the address as `address_visibility` allows: EXACT all of it, STREET the street without its number
 *   (the first comma-separated part without the words that hold a digit or announce a number), HIDDEN
 *   neither address nor zip code; `approximateLocation` is HIDDEN; coordinates as stored for the portal;
 * - unknown amenity names dropped;
 * - every photo with an id (an uploaded one's own; for a photo given by URL, 22 base62 digits of the
 *   SHA-256 of its URL and its occurrence among the URL photos), caption and alt text (null when
 *   absent), and for an uploaded one (an id and sizes) its dimensions, sizes and JPEG rendition;
 * - timestamps as ISO text.
 * Only shared constant vocabularies are imported from the service, never its code.
 */
import { createHash } from 'node:crypto';
import { AMENITIES } from '../../src/shared/property-vocabulary.ts';
import { isoSql, Unsupported } from './bare-pg-route.ts';

/**
 * The organization's row the columns read (alias `o`): whether it shows price drops, its default
 * language, and `served`: the language asked in `langParam` when the organization serves it and it is
 * not the default (NULL otherwise: the listing's own text).
 */
export const organizationSettings = (organizationParam: string, langParam: string) =>
  `(SELECT show_price_drops, default_language,
      CASE WHEN ${langParam}::text <> default_language AND ${langParam}::text = ANY (other_languages)
        THEN ${langParam}::text END AS served
    FROM organizations WHERE id = ${organizationParam}) o`;

/**
 * The select list over `properties p LEFT JOIN agents a` and the organization's settings `o`
 * (agent columns prefixed `agent_`). A translation always has a title and a description, so one in
 * the served language replaces both.
 */
export const PORTAL_COLUMNS = `p.id, p.code,
  coalesce(p.translations -> o.served ->> 'title', p.title) AS title,
  coalesce(p.translations -> o.served ->> 'description', p.description) AS description,
  CASE WHEN p.translations ? o.served THEN o.served ELSE o.default_language END AS language,
  p.transaction_type, p.type, p.status, p.featured, p.price,
  CASE WHEN o.show_price_drops THEN p.previous_price END AS previous_price,
  p.currency, p.city, p.neighborhood,
  CASE WHEN p.address_visibility <> 'HIDDEN' THEN p.address END AS address,
  CASE WHEN p.address_visibility <> 'HIDDEN' THEN p.zip_code END AS zip_code,
  p.address_visibility, p.portal_latitude, p.portal_longitude, p.bedrooms, p.bathrooms, p.area,
  p.amenities, p.photos,
  ${isoSql('p.created_at')} AS created_at, ${isoSql('p.public_updated_at')} AS updated_at,
  a.id AS agent_id, a.first_name AS agent_first_name, a.last_name AS agent_last_name,
  a.phone AS agent_phone, a.email AS agent_email, a.photo_url AS agent_photo_url`;

/** The join the columns above read from (with `organizationSettings` beside it). */
export const PORTAL_FROM = `properties p
  LEFT JOIN agents a ON a.organization_id = p.organization_id AND a.id = p.agent_id`;

/** What the portal shows: active and published. */
export const PORTAL_VISIBLE = `p.status = 'ACTIVE' AND p.published_on_portal`;

/** A photo as the `photos` column holds it. */
interface StoredPhoto {
  id?: string;
  url: string;
  caption?: string | null;
  altText?: string | null;
  width?: number;
  height?: number;
  sizes?: Array<{ width: number; height: number; url: string }>;
  jpegUrl?: string;
}

export interface PortalRow {
  id: string;
  code: string;
  title: string;
  description: string;
  language: string;
  transaction_type: string;
  type: string;
  status: string;
  featured: boolean;
  /** numeric: text from the driver. */
  price: string;
  previous_price: string | null;
  currency: string;
  city: string;
  neighborhood: string | null;
  /** NULL when HIDDEN; the whole address otherwise (STREET is cut here). */
  address: string | null;
  zip_code: string | null;
  address_visibility: string;
  portal_latitude: number | null;
  portal_longitude: number | null;
  bedrooms: number;
  bathrooms: number;
  area: string | null;
  amenities: string[];
  photos: StoredPhoto[];
  created_at: string;
  updated_at: string;
  agent_id: string | null;
  agent_first_name: string | null;
  agent_last_name: string | null;
  agent_phone: string | null;
  agent_email: string | null;
  agent_photo_url: string | null;
}

const KNOWN_AMENITIES = new Set<string>(AMENITIES);

/** Words of an address that only announce its number (`nº 12`, `no. 12`, `#12`). */
const NUMBER_WORDS = new Set(['nº', 'n°', 'no.', 'num', 'num.', 'número', 'numero', '#', 's/n']);

/** STREET: the first comma-separated part of the address without its number words; null if none is left. */
function streetOnly(address: string): string | null {
  const kept: string[] = [];
  for (const word of (address.split(',')[0] ?? '').split(/\s+/))
    if (word !== '' && !/\d/.test(word) && !NUMBER_WORDS.has(word.toLowerCase())) kept.push(word);
  return kept.length === 0 ? null : kept.join(' ');
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The id of a photo given by URL: the SHA-256 of `url \n occurrence` read as a 256-bit number, its 22
 * lowest base62 digits, lowest first (long division over eight 32-bit limbs).
 */
function urlPhotoId(url: string, occurrence: number): string {
  const digest = createHash('sha256').update(`${url}\n${occurrence}`).digest();
  const limbs = [0, 4, 8, 12, 16, 20, 24, 28].map((offset) => digest.readUInt32BE(offset));
  let id = 'ph_';
  for (let digit = 0; digit < 22; digit++) {
    let rest = 0;
    for (let i = 0; i < 8; i++) {
      const current = rest * 4_294_967_296 + (limbs[i] as number);
      const quotient = Math.floor(current / 62);
      limbs[i] = quotient;
      rest = current - quotient * 62;
    }
    id += BASE62[rest];
  }
  return id;
}

/**
 * The photos as the portal shows them, members in the order the service's serializer writes them: the
 * schema's required `url` first, then its optional members in the schema's order.
 */
function photosJson(photos: StoredPhoto[]) {
  let occurrences: Map<string, number> | undefined;
  return photos.map((photo) => {
    let id = photo.id;
    if (typeof id !== 'string') {
      occurrences ??= new Map();
      const occurrence = occurrences.get(photo.url) ?? 0;
      occurrences.set(photo.url, occurrence + 1);
      id = urlPhotoId(photo.url, occurrence);
    }
    const shown = { url: photo.url, id, caption: photo.caption ?? null, altText: photo.altText ?? null };
    if (typeof photo.id !== 'string' || !Array.isArray(photo.sizes)) return shown;
    return {
      ...shown,
      width: photo.width ?? 0,
      height: photo.height ?? 0,
      sizes: photo.sizes.map((size) => ({ width: size.width, height: size.height, url: size.url })),
      ...(photo.jpegUrl === undefined ? {} : { jpegUrl: photo.jpegUrl }),
    };
  });
}

/** One row as the portal answers it, members in the response schema's order. */
export function portalJson(row: PortalRow) {
  return {
    id: row.id,
    code: row.code,
    title: row.title,
    description: row.description,
    transactionType: row.transaction_type,
    type: row.type,
    status: row.status,
    featured: row.featured,
    price: Number(row.price),
    previousPrice: row.previous_price === null ? null : Number(row.previous_price),
    currency: row.currency,
    city: row.city,
    neighborhood: row.neighborhood,
    address:
      row.address !== null && row.address_visibility === 'STREET' ? streetOnly(row.address) : row.address,
    zipCode: row.zip_code,
    coordinates:
      row.portal_latitude === null || row.portal_longitude === null
        ? null
        : { latitude: row.portal_latitude, longitude: row.portal_longitude },
    addressVisibility: row.address_visibility,
    approximateLocation: row.address_visibility === 'HIDDEN',
    bedrooms: row.bedrooms,
    bathrooms: row.bathrooms,
    area: row.area === null ? null : Number(row.area),
    amenities: row.amenities.filter((name) => KNOWN_AMENITIES.has(name)),
    photos: photosJson(row.photos),
    agent:
      row.agent_id === null
        ? null
        : {
            id: row.agent_id,
            firstName: row.agent_first_name,
            lastName: row.agent_last_name,
            phone: row.agent_phone,
            email: row.agent_email,
            photoUrl: row.agent_photo_url,
          },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    language: row.language,
  };
}

/**
 * The language asked (`lang`, bound as the statement's parameter; null: none), refusing what the
 * baseline does not negotiate: an Accept-Language other than none or `*` (which serve the default)
 * without `lang`. A `lang` the organization does not serve is answered in its default, as documented.
 */
export function askedLanguage(lang: string | undefined, acceptLanguage: string | string[] | undefined) {
  if (lang !== undefined) {
    if (!/^[a-z]{2}$/.test(lang)) throw new Unsupported(`lang must be two lowercase letters, got ${lang}`);
    return lang;
  }
  if (acceptLanguage !== undefined && acceptLanguage !== '' && acceptLanguage !== '*')
    throw new Unsupported('the baseline does not negotiate Accept-Language: send lang');
  return null;
}
