/**
 * Rows of the scale data set, generated in Node for COPY (bench/lib/scale-data.ts), every value
 * derived from md5 of (organization index, row number) or a PRNG seeded by the organization index:
 * the same arguments always give the same rows.
 *
 * Properties and agents follow portal-data.ts's SQL recipe value for value (same hashes, same
 * formulas, PostgreSQL's own arithmetic reproduced: numeric rounding, interval multiplication,
 * float8 -> numeric through 15 significant digits, and exp() values read from the database), so
 * organization N holds byte-identical stock whichever loader made it; the derived columns are
 * those of the application's propertyColumns(). Contacts use the names, domains and phone numbers
 * of the contacts scenario with the application's own search_text; analytics events spread over
 * the year before the anchor day.
 */
import { createHash } from 'node:crypto';
import { propertyColumns } from '../../src/features/properties/properties.service.ts';
import {
  AMENITIES,
  PROPERTY_TYPES,
  type CreatePropertyBody,
} from '../../src/features/properties/properties.schema.ts';
import {
  CONTACT_SOURCES,
  CONTACT_STATUSES,
  CONTACT_TYPES,
} from '../../src/features/contacts/contacts.schema.ts';
import { searchText as contactSearchText } from '../../src/features/contacts/contacts.service.ts';
import { ANALYTICS_EVENT_TYPES } from '../../src/features/analytics/analytics.schema.ts';
import { fold } from '../../src/platform/text/fold.ts';
import { arrayLiteral, copyRow } from './copy.ts';
import { DOMAINS, FIRST, LAST, phoneOf } from './contacts-data.ts';
import {
  ADJECTIVES,
  AGENTS_PER_ORG,
  AMENITY_SHARES,
  AREA_BASE,
  CITY_POOL,
  CITY_SHARES,
  EN_TYPE_LABELS,
  FIRST_NAMES,
  LAST_NAMES,
  NEIGHBORHOODS,
  RENT_BASE,
  SALE_BASE,
  SENTENCES,
  STREETS,
  TYPE_CUMULATIVE,
  TYPE_LABELS,
} from './portal-data.ts';

const md5 = (text: string) => createHash('md5').update(text).digest();
const md5Hex = (text: string) => createHash('md5').update(text).digest('hex');

// --- PostgreSQL's arithmetic, where the SQL recipe relies on it --------------------------------

/** rint(): round half to even, as PostgreSQL's round(float8) and interval arithmetic do. */
function rint(x: number): number {
  const r = Math.round(x);
  return Math.abs(x - Math.trunc(x)) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Microseconds of `factor * interval '<days> days'` (PostgreSQL 15 interval_mul, no months). */
function intervalMicros(days: number, factor: number): number {
  let day = Math.trunc(days * factor);
  let seconds = rint((days * factor - day) * 86400 * 1e6) / 1e6;
  if (Math.abs(seconds) >= 86400) {
    const whole = Math.trunc(seconds / 86400);
    day += whole;
    seconds -= whole * 86400;
  }
  return day * 86_400_000_000 + rint(seconds * 1e6);
}

/**
 * round(x::numeric, digits)::float8 for a float8 x: the cast keeps 15 significant digits
 * (DBL_DIG), numeric round() goes half away from zero. Exact for the coordinates of the recipe
 * (checked against PostgreSQL for every hash value and city).
 */
function roundAsNumeric(x: number, digits: number): number {
  const text = Math.abs(x).toPrecision(15);
  const [whole = '0', fraction = ''] = text.split('.');
  const padded = fraction.padEnd(digits + 1, '0');
  let scaled = BigInt(whole + padded.slice(0, digits));
  if ((padded[digits] ?? '0') >= '5') scaled += 1n;
  const digitsText = scaled.toString().padStart(digits + 1, '0');
  const value = Number(`${digitsText.slice(0, -digits)}.${digitsText.slice(-digits)}`);
  return x < 0 ? -value : value;
}

/** A timestamp with microseconds (epoch µs) as COPY reads it. */
export function timestampText(micros: number): string {
  const ms = Math.floor(micros / 1000);
  return `${new Date(ms).toISOString().slice(0, -1)}${String(micros - ms * 1000).padStart(3, '0')}Z`;
}

/** exp() of the two price spreads for every 16-bit hash value, as the database computes them. */
export interface ExpTable {
  rent: Float64Array;
  sale: Float64Array;
}

/**
 * PostgreSQL's exp() is correctly rounded and V8's Math.exp is not (1 ulp apart for ~12 % of
 * inputs): the table comes from the database, so prices are the SQL recipe's to the cent.
 */
export async function loadExpTable(query: (text: string) => Promise<{ rows: unknown[] }>): Promise<ExpTable> {
  const { rows } = await query(
    `SELECT exp((k / 65536.0 - 0.5) * 1.0)::float8 AS rent, exp((k / 65536.0 - 0.5) * 1.2)::float8 AS sale
     FROM generate_series(0, 65535) k ORDER BY k`,
  );
  const table = { rent: new Float64Array(65536), sale: new Float64Array(65536) };
  (rows as Array<{ rent: number; sale: number }>).forEach((row, k) => {
    table.rent[k] = row.rent;
    table.sale[k] = row.sale;
  });
  return table;
}

// --- Properties and agents (portal-data.ts's recipe) -------------------------------------------

export const PROPERTY_ANCHOR_MICROS = Date.UTC(2026, 10, 1) * 1000;

const cumulative = (shares: number[]) =>
  shares.map((_, i) => shares.slice(0, i + 1).reduce((a, b) => a + b, 0));
const CITY_CUMULATIVE = cumulative(CITY_SHARES);

/** 1-based index of the first cumulative share above `uniform` (the SQL recipe's `pick`). */
function pick(uniform: number, shares: number[]): number {
  for (let i = 0; i < shares.length - 1; i++) if (uniform < (shares[i] ?? 1)) return i + 1;
  return shares.length;
}

export const agentId = (orgIndex: number, k: number) =>
  `agt_${md5Hex(`agent/${orgIndex}/${k}`).slice(0, 22)}`;
export const propertyId = (orgIndex: number, g: number) =>
  `prop_${md5Hex(`prop/${orgIndex}/${g}`).slice(0, 22)}`;

export const AGENT_COLUMNS = [
  'id',
  'organization_id',
  'first_name',
  'last_name',
  'email',
  'phone',
  'photo_url',
];

export function* agentRows(orgs: ReadonlyArray<{ idx: number; id: string }>): Generator<string> {
  for (const org of orgs) {
    for (let k = 0; k < AGENTS_PER_ORG; k++) {
      yield copyRow([
        agentId(org.idx, k),
        org.id,
        FIRST_NAMES[(org.idx + k) % FIRST_NAMES.length],
        LAST_NAMES[(org.idx * 3 + k) % LAST_NAMES.length],
        `agente${k}@agencia${org.idx}.example.com`,
        // lpad(..., 4, '0') cuts longer numbers to their first 4 digits, as the SQL recipe does.
        `+3460000${String(org.idx * AGENTS_PER_ORG + k)
          .padStart(4, '0')
          .slice(0, 4)}`,
        `https://cdn.example.com/bench/agents/${org.idx}/${k}.jpg`,
      ]);
    }
  }
}

export const PROPERTY_COLUMNS = [
  'id',
  'organization_id',
  'code',
  'title',
  'description',
  'transaction_type',
  'type',
  'status',
  'published_on_portal',
  'featured',
  'price',
  'previous_price',
  'currency',
  'city',
  'neighborhood',
  'address',
  'zip_code',
  'latitude',
  'longitude',
  'approximate_location',
  'address_visibility',
  'portal_latitude',
  'portal_longitude',
  'bedrooms',
  'bathrooms',
  'area',
  'amenities',
  'photos',
  'translations',
  'agent_id',
  'internal_notes',
  'custom_fields',
  'search_city',
  'search_neighborhood',
  'search_text',
  'created_at',
  'updated_at',
];

const RESIDENTIAL = new Set([1, 2, 3, 4, 5, 6, 7, 13]);

function bedroomsOf(type: number, u6: number): number {
  switch (type) {
    case 1:
      return 1 + Math.floor(u6 * 4);
    case 2:
    case 6:
      return 2 + Math.floor(u6 * 4);
    case 4:
    case 5:
      return 2 + Math.floor(u6 * 3);
    case 7:
      return 3 + Math.floor(u6 * 4);
    case 13:
      return 1;
    default:
      return 0;
  }
}

/** Area in hundredths: round((base * (0.6 + u * 0.9))::numeric, 2) in exact integer arithmetic. */
function areaHundredths(base: number, k: number): number {
  // base * (0.6 + 0.9 k / 65536) * 100 = base * (393216 + 9 k) * 5 / 32768; half away from zero.
  const numerator = base * (393216 + 9 * k) * 5;
  return Math.floor((2 * numerator + 32768) / 65536);
}

const hundredthsText = (h: number) => `${Math.floor(h / 100)}.${String(h % 100).padStart(2, '0')}`;

/** Property `g` (1-based) of the organization with index `orgIndex`, as one COPY line. */
export function propertyRow(org: { idx: number; id: string }, g: number, exp: ExpTable): string {
  const hashes = ['a', 'b', 'c', 'd', 'e'].map((letter) => md5(`${letter}/${org.idx}/${g}`));
  const word = (n: number) => {
    const h = hashes[Math.floor(n / 8)] as Buffer;
    const i = (n % 8) * 2;
    return (h[i] as number) * 256 + (h[i + 1] as number);
  };
  const u = (n: number) => word(n) / 65536;

  const cityK = pick(u(0), CITY_CUMULATIVE) - 1;
  const poolIndex = (org.idx * 3 + cityK * 5) % CITY_POOL.length;
  const [city, cityLat, cityLng, priceFactor] = CITY_POOL[poolIndex] as [string, number, number, number];
  const tx = u(1) < 0.6 ? 'SALE' : u(1) < 0.95 ? 'RENT' : 'SALE_OR_RENT';
  const t = pick(u(2), TYPE_CUMULATIVE);
  const u3 = u(3);
  const status =
    u3 < 0.9 ? 'ACTIVE' : u3 < 0.94 ? 'RESERVED' : u3 < 0.97 ? 'SOLD' : u3 < 0.99 ? 'RENTED' : 'INACTIVE';
  const published = !(u3 >= 0.85 && u3 < 0.9);
  const neighborhood =
    u(10) < 0.05 ? null : (NEIGHBORHOODS[Math.floor(Math.pow(u(11), 1.5) * NEIGHBORHOODS.length)] as string);
  const adjective = ADJECTIVES[Math.floor(u(12) * ADJECTIVES.length)] as string;
  const s1 = SENTENCES[Math.floor(u(13) * SENTENCES.length)] as string;
  const s2 = SENTENCES[Math.floor(u(14) * SENTENCES.length)] as string;

  const bedrooms = bedroomsOf(t, u(6));
  const bathrooms = RESIDENTIAL.has(t) ? 1 + Math.floor(u(7) * 3) : Math.floor(u(7) * 2);
  const area = u(9) < 0.02 ? null : areaHundredths(AREA_BASE[t - 1] as number, word(8));
  const price =
    tx === 'RENT'
      ? rint(((RENT_BASE[t - 1] as number) * priceFactor * (exp.rent[word(4)] as number)) / 10) * 10
      : rint(((SALE_BASE[t - 1] as number) * priceFactor * (exp.sale[word(4)] as number)) / 1000) * 1000;
  const located = u(34) >= 0.03;
  const latitude = located ? roundAsNumeric(cityLat + (word(15) - 32768) / 819200, 6) : null;
  const longitude = located ? roundAsNumeric(cityLng + (word(16) - 32768) / 655360, 6) : null;
  const createdAt = PROPERTY_ANCHOR_MICROS - intervalMicros(730, u(32));
  const updatedAt = createdAt + intervalMicros(60, u(23));
  const title = `${TYPE_LABELS[t - 1]} ${adjective} en ${neighborhood ?? city}`;
  const areaText = area === null ? 'superficie a consultar' : `${Math.floor((area + 50) / 100)} m2`;
  const h4 = hashes[3] as Buffer;
  const photoBase = `https://cdn.example.com/bench/${org.idx}/${g}/`;
  const caption = (i: number) => (i === 0 ? 'Fachada' : i === 1 ? 'Salón' : null);
  const photos = Array.from({ length: 3 + Math.floor(u(19) * 6) }, (_, i) =>
    u(38) < 0.1
      ? {
          id: `ph_${md5Hex(`photo/${org.idx}/${g}/${i + 1}`).slice(0, 22)}`,
          url: `${photoBase}${i + 1}/1600.webp`,
          caption: caption(i),
          altText: i === 0 ? 'Fachada del edificio' : 'Interior de la vivienda',
          width: 4000,
          height: 3000,
          sizes: [480, 960, 1600].map((w) => ({
            width: w,
            height: (w * 3) / 4,
            url: `${photoBase}${i + 1}/${w}.webp`,
          })),
          jpegUrl: `${photoBase}${i + 1}/1600.jpg`,
        }
      : { url: `${photoBase}${i + 1}.jpg`, caption: caption(i) },
  );
  const u22 = u(22);
  const hidden = u(33) < 0.2;
  const enTitle = `${EN_TYPE_LABELS[t - 1]} in ${neighborhood ?? city}`;

  const body = {
    code: `REF-${String(g).padStart(6, '0')}`,
    title,
    description: `${title}. ${bedrooms} dormitorios, ${bathrooms} baños, ${areaText}. ${s1} ${s2}`,
    transactionType: tx,
    type: PROPERTY_TYPES[t - 1],
    status,
    publishedOnPortal: published,
    featured: u(5) < 0.05,
    price,
    currency: 'EUR',
    city,
    neighborhood,
    address: `Calle ${STREETS[Math.floor(u(17) * STREETS.length)]}, ${1 + Math.floor(u(18) * 120)}`,
    zipCode: String(1000 + poolIndex * 1000 + Math.floor(u(18) * 40)).padStart(5, '0'),
    coordinates: latitude === null || longitude === null ? null : { latitude, longitude },
    approximateLocation: hidden,
    addressVisibility: hidden ? 'HIDDEN' : u(35) < 0.25 ? 'STREET' : 'EXACT',
    translations:
      u(37) < 0.3
        ? { en: { title: enTitle, description: `${enTitle}. ${bedrooms} bedrooms, ${bathrooms} bathrooms.` } }
        : {},
    bedrooms,
    bathrooms,
    area: area === null ? null : area / 100,
    amenities: AMENITIES.filter((_, i) => (h4[i] as number) < (AMENITY_SHARES[i] as number) * 256),
    photos,
    agentId: u(20) < 0.1 ? null : agentId(org.idx, Math.floor(u(21) * AGENTS_PER_ORG)),
    internalNotes: u22 < 0.3 ? 'Llaves en la oficina; el propietario prefiere visitas por la tarde.' : null,
    customFields: { source: 'bench', floor: Math.floor(u22 * 8) },
  } as CreatePropertyBody;
  // Every column as the service writes it, derived ones (search_*, portal_*) from its own function.
  const c = propertyColumns(body, { defaultCurrency: 'EUR', defaultLanguage: 'es' });
  return copyRow([
    propertyId(org.idx, g),
    org.id,
    c.code,
    c.title,
    c.description,
    c.transactionType,
    c.type,
    c.status,
    c.publishedOnPortal,
    c.featured,
    c.price,
    u(36) < 0.15 ? price + (tx === 'RENT' ? 50 : 15_000) : null,
    c.currency,
    c.city,
    c.neighborhood,
    c.address,
    c.zipCode,
    c.latitude,
    c.longitude,
    c.approximateLocation,
    c.addressVisibility,
    c.portalLatitude,
    c.portalLongitude,
    c.bedrooms,
    c.bathrooms,
    area === null ? null : hundredthsText(area),
    arrayLiteral(c.amenities ?? []),
    JSON.stringify(c.photos),
    JSON.stringify(c.translations),
    c.agentId,
    c.internalNotes,
    JSON.stringify(c.customFields),
    c.searchCity,
    c.searchNeighborhood,
    c.searchText,
    timestampText(createdAt),
    timestampText(updatedAt),
  ]);
}

export function* propertyRows(
  orgs: ReadonlyArray<{ idx: number; id: string }>,
  perOrg: number,
  exp: ExpTable,
): Generator<string> {
  for (const org of orgs) for (let g = 1; g <= perOrg; g++) yield propertyRow(org, g, exp);
}

// --- Contacts -----------------------------------------------------------------------------------

export const CONTACT_COLUMNS = [
  'id',
  'organization_id',
  'code',
  'first_name',
  'last_name',
  'email',
  'email_key',
  'phone',
  'source',
  'status',
  'type',
  'score',
  'owner_id',
  'tags',
  'search_text',
  'last_activity_at',
  'created_at',
  'updated_at',
];

const CONTACT_TAGS = ['vip', 'inversor', 'segunda-residencia', 'portal-lead', 'newsletter'];

/** Contact `n` (1-based) of an organization: its phone is phoneOf(org index, n), unique per organization. */
export function contactRow(org: { idx: number; id: string }, n: number, anchorMicros: number): string {
  const h = Buffer.concat([md5(`contact/${org.idx}/${n}`), md5(`contact+/${org.idx}/${n}`)]);
  const byte = (i: number) => h[i] as number;
  const word = (i: number) => byte(2 * i) * 256 + byte(2 * i + 1);
  const firstName = FIRST[word(0) % FIRST.length] as string;
  const lastName = LAST[word(1) % LAST.length] as string;
  const email = `${fold(firstName)}.${fold(lastName)}${n}@${DOMAINS[word(2) % DOMAINS.length]}`;
  const phone = phoneOf(org.idx, n);
  const createdAt = anchorMicros - Math.floor((word(3) / 65536) * 730 * 86_400_000_000);
  const updatedAt = createdAt + Math.floor((word(4) / 65536) * 30 * 86_400_000_000);
  // Each tag on about one contact in eight.
  const tags = CONTACT_TAGS.filter((_, i) => byte(20 + i) < 32);
  return copyRow([
    `ct_${md5Hex(`ct/${org.idx}/${n}`).slice(0, 22)}`,
    org.id,
    `CT-${String(n).padStart(6, '0')}`,
    firstName,
    lastName,
    email,
    email.toLowerCase(),
    phone,
    CONTACT_SOURCES[word(5) % CONTACT_SOURCES.length],
    CONTACT_STATUSES[word(6) % CONTACT_STATUSES.length],
    CONTACT_TYPES[word(7) % CONTACT_TYPES.length],
    byte(16) % 100,
    byte(17) < 128 ? agentId(org.idx, byte(18) % AGENTS_PER_ORG) : null,
    arrayLiteral(tags),
    contactSearchText({ firstName, lastName, email, phone }),
    byte(19) < 160 ? timestampText(updatedAt) : null,
    timestampText(createdAt),
    timestampText(updatedAt),
  ]);
}

export function* contactRows(
  orgs: ReadonlyArray<{ idx: number; id: string }>,
  perOrg: number,
  anchorMicros: number,
): Generator<string> {
  for (const org of orgs) for (let n = 1; n <= perOrg; n++) yield contactRow(org, n, anchorMicros);
}

// --- Analytics events ---------------------------------------------------------------------------

export const ANALYTICS_COLUMNS = ['organization_id', 'type', 'property_id', 'referrer', 'occurred_at'];

/** Share of each type, in ANALYTICS_EVENT_TYPES order; the types about one listing carry its id. */
const EVENT_SHARES = [0.3, 0.35, 0.15, 0.03, 0.05, 0.04, 0.03, 0.03, 0.02];
const EVENT_CUMULATIVE = cumulative(EVENT_SHARES);
const ABOUT_A_PROPERTY = new Set([
  'PROPERTY_VIEW',
  'LEAD_FORM',
  'MESSAGING_CLICK',
  'CALL_CLICK',
  'SCHEDULE_CLICK',
  'SHARE_CLICK',
]);
const REFERRERS = [
  'https://www.google.com/',
  'https://www.idealista.com/',
  'https://www.fotocasa.es/',
  'https://www.facebook.com/',
  'https://www.instagram.com/',
];

/** Deterministic uniform numbers in [0, 1) (mulberry32). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const YEAR_MICROS = 365 * 86_400_000_000;

/**
 * `perOrg` portal events per organization over the 365 days before `anchorMicros`, oldest first:
 * page views, property views (a few listings draw most of them), searches and clicks; 30 % without
 * a referrer.
 */
export function* analyticsRows(
  orgs: ReadonlyArray<{ idx: number; id: string }>,
  perOrg: number,
  propertiesPerOrg: number,
  anchorMicros: number,
): Generator<string> {
  for (const org of orgs) {
    const random = prng(org.idx * 7919 + 17);
    const ids = new Map<number, string>();
    const times = new Float64Array(perOrg);
    for (let i = 0; i < perOrg; i++) times[i] = anchorMicros - Math.floor(random() * YEAR_MICROS) - 1;
    times.sort();
    for (let i = 0; i < perOrg; i++) {
      const type = ANALYTICS_EVENT_TYPES[pick(random(), EVENT_CUMULATIVE) - 1] as string;
      let property: string | null = null;
      if (ABOUT_A_PROPERTY.has(type) && propertiesPerOrg > 0) {
        const g = 1 + Math.floor(Math.pow(random(), 2) * propertiesPerOrg);
        property = ids.get(g) ?? propertyId(org.idx, g);
        ids.set(g, property);
      }
      const r = random();
      yield copyRow([
        org.id,
        type,
        property,
        r < 0.3 ? null : REFERRERS[Math.floor(((r - 0.3) / 0.7) * REFERRERS.length)],
        timestampText(times[i] as number),
      ]);
    }
  }
}
