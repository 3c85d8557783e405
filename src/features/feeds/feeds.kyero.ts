// The Kyero v3 XML feed (issue 25 item 7, docs/feeds.md): the published stock in Kyero's import format,
// the portal's view of each listing (address visibility applied to the coordinates it gives), every
// language of the listing that Kyero knows. Kyero's schema (v3.4, test/fixtures/kyero) decides the shape; where our
// data does not fit it, the mapping below says what is done.
import type { FeedListing } from '../properties/index.ts';
import { spanishProvinceOf } from './feeds.provinces.ts';
import { element, xmlText } from './feeds.xml.ts';

/** The 13 languages Kyero's `langType` lists (v3.4): a listing's other languages are left out. */
export const KYERO_LANGUAGES = new Set('ca de da en es fi fr it nl no pt ru sv'.split(' '));
/** Kyero's `refType`: 1 to 255 characters. */
const KYERO_REF_LENGTH = 255;
/** Kyero's `currencyType`: a listing priced in another currency is left out (its price would read as EUR). */
export const KYERO_CURRENCIES = new Set(['EUR', 'GBP', 'USD']);
/** Kyero's `imageUrlType`: http(s) or ftp, ending in .gif, .jpg, .jpeg or .png. */
const KYERO_IMAGE = /^(https?|ftp):\/\/.+\.(gif|jpe?g|png)$/i;
/** A probed media type Kyero takes, and the ending its alias URL gets (decision 0266). */
export const KYERO_IMAGE_ENDINGS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
};

/** A photo's alias URL (our host, ending as Kyero requires): /feeds/{token}/photos/{listing}/{photo}.{ending}. */
export type PhotoAlias = (listingId: string, photoId: string, ending: string) => string;

const KYERO_TYPES: Record<string, string> = {
  APARTMENT: 'apartment',
  HOUSE: 'house',
  STUDIO: 'studio',
  PENTHOUSE: 'penthouse',
  DUPLEX: 'duplex',
  TOWNHOUSE: 'town house',
  VILLA: 'villa',
  LAND: 'land',
  COMMERCIAL: 'commercial',
  OFFICE: 'office',
  WAREHOUSE: 'warehouse',
  PARKING: 'garage',
  ROOM: 'room',
};

/** Amenities as Kyero features (English words, as Kyero's own feature list). */
const KYERO_FEATURES: Record<string, string> = {
  petFriendly: 'Pets allowed',
  pool: 'Swimming pool',
  parking: 'Parking',
  garden: 'Garden',
  elevator: 'Lift',
  furnished: 'Furnished',
  airConditioning: 'Air conditioning',
  terrace: 'Terrace',
  balcony: 'Balcony',
  storage: 'Storage room',
  security: 'Security',
  gym: 'Gym',
  heating: 'Heating',
  fireplace: 'Fireplace',
  seaView: 'Sea views',
  accessible: 'Accessible',
};

/** `YYYY-MM-DD HH:MM:SS` in UTC, Kyero's `dateType`. */
export function kyeroDate(iso: string): string {
  return iso.slice(0, 19).replace('T', ' ');
}

export function kyeroHead(generatedAt: Date): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<root>\n' +
    `<kyero><feed_version>3</feed_version><feed_generated>${kyeroDate(generatedAt.toISOString())}</feed_generated></kyero>\n`
  );
}

export const KYERO_TAIL = '</root>\n';

/** Whether a listing can be written in Kyero's format (its currency is one Kyero knows). */
export function fitsKyero({ listing }: FeedListing): boolean {
  return KYERO_CURRENCIES.has(listing.currency);
}

/**
 * Kyero's required `<province>`: for an agency in Spain, the province of the postal code the portal
 * shows; else (another country, no postal code shown) the town, as before (decision 0256).
 */
function provinceOf(listing: FeedListing['listing'], country: string): string {
  return (country === 'ES' ? spanishProvinceOf(listing.zipCode) : null) ?? listing.city;
}

/**
 * One `<property>`: Kyero's elements in its schema's terms (xs:all, so in any order). `country` is the
 * organization's (its default country, ISO 3166-1).
 */
export function kyeroProperty(
  { listing: p, texts, imageTypes }: FeedListing,
  country: string,
  alias: PhotoAlias,
): string {
  const descriptions = texts
    .filter((text) => KYERO_LANGUAGES.has(text.language))
    .map((text) =>
      element(text.language, text.description === '' ? text.title : `${text.title}\n\n${text.description}`),
    )
    .join('');
  const features = p.amenities.map((amenity) => KYERO_FEATURES[amenity]).filter((f) => f !== undefined);
  // Kyero's schema wants at least one feature: a listing without amenities says what it is offered for.
  if (features.length === 0) features.push(p.transactionType === 'RENT' ? 'For rent' : 'For sale');
  const images = p.photos
    .map((photo) => {
      // An uploaded photo's sizes are WebP, which Kyero does not take: its JPEG rendition goes instead.
      const url = photo.jpegUrl ?? photo.url;
      if (KYERO_IMAGE.test(url)) return url;
      // A URL without such an ending whose address answered JPEG, PNG or GIF: through its alias.
      const ending = KYERO_IMAGE_ENDINGS[imageTypes[photo.id ?? ''] ?? ''];
      return ending === undefined || photo.id === undefined ? null : alias(p.id, photo.id, ending);
    })
    .filter((url): url is string => url !== null && url.length <= 2048)
    .slice(0, 50)
    .map((url, index) => `<image id="${index + 1}"><url>${xmlText(url)}</url></image>`)
    .join('');
  return (
    '<property>' +
    element('id', p.id) +
    element('date', kyeroDate(p.updatedAt)) +
    element('ref', p.code.slice(0, KYERO_REF_LENGTH)) +
    element('price', Math.round(p.price)) +
    element('currency', p.currency) +
    element('price_freq', p.transactionType === 'RENT' ? 'month' : 'sale') +
    element('new_build', 0) +
    element('type', KYERO_TYPES[p.type] ?? 'other') +
    element('town', p.city) +
    element('province', provinceOf(p, country)) +
    (p.coordinates
      ? `<location>${element('latitude', p.coordinates.latitude)}${element('longitude', p.coordinates.longitude)}</location>`
      : '') +
    element('location_detail', p.neighborhood?.slice(0, 50) ?? null) +
    element('beds', p.bedrooms) +
    element('baths', p.bathrooms) +
    element('pool', p.amenities.includes('pool') ? 1 : 0) +
    (p.area === null ? '' : `<surface_area>${element('built', Math.round(p.area))}</surface_area>`) +
    // Required, if empty when the listing has no text in a language Kyero knows.
    `<desc>${descriptions}</desc>` +
    `<features>${features.map((feature) => element('feature', feature)).join('')}</features>` +
    // Required, if empty when no photo has an address Kyero takes (or an alias of one).
    `<images>${images}</images>` +
    '</property>\n'
  );
}
