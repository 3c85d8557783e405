/**
 * Benchmark stock for the portal scenarios: organizations through the admin API (so their test
 * twins exist as the product makes them), then agents and properties inserted with SQL
 * (`INSERT ... SELECT FROM generate_series`) as the database owner, which loads 100,000 properties
 * in about a minute where the admin API would take much longer.
 *
 * Every value is derived from md5(organization index, row number): organization N gets the same
 * stock whatever the number of organizations loaded, so a 10-organization and a 100-organization
 * database hold identical data for their first ten agencies (the scale scenario relies on it).
 * The derived columns the application fills (search_city, search_neighborhood, search_text,
 * portal_latitude/longitude) are checked against the application's own functions after loading.
 *
 * Every field the portal shows takes each of its shapes somewhere: organizations serve Spanish (their
 * default) and English, every other one shows price drops; listings have an English translation
 * (30 %), a previous price (15 %), an address shown EXACT, STREET (20 %) or HIDDEN (the approximate
 * 20 %), and photos given by URL or, for 10 %, uploaded ones (id, alt text, sizes, JPEG).
 */
import pg from 'pg';
import { propertyColumns } from '../../src/features/properties/properties.service.ts';
import {
  AMENITIES,
  PROPERTY_TYPES,
  type AddressVisibility,
  type CreatePropertyBody,
} from '../../src/features/properties/properties.schema.ts';
import type { PropertyTranslations } from '../../src/db/schema.ts';
import { fold } from '../../src/platform/text/fold.ts';
import { adminClient, type BenchOrganization } from './admin-client.ts';

/** Cities an agency may cover: name, centre, price level (1 = national average). */
export const CITY_POOL: Array<[string, number, number, number]> = [
  ['Málaga', 36.7213, -4.4214, 1.2],
  ['Córdoba', 37.8882, -4.7794, 0.8],
  ['Cádiz', 36.5271, -6.2886, 1.0],
  ['Sevilla', 37.3891, -5.9845, 1.1],
  ['Almería', 36.834, -2.4637, 0.8],
  ['Jaén', 37.7796, -3.7849, 0.6],
  ['Granada', 37.1773, -3.5986, 0.95],
  ['Huelva', 37.2614, -6.9447, 0.7],
  ['León', 42.5987, -5.5671, 0.75],
  ['Ávila', 40.6565, -4.6818, 0.65],
  ['Logroño', 42.4627, -2.445, 0.85],
  ['San Sebastián', 43.3183, -1.9812, 1.9],
  ['A Coruña', 43.3623, -8.4115, 0.95],
  ['Castellón de la Plana', 39.9864, -0.0513, 0.75],
  ['Alcalá de Henares', 40.4818, -3.3635, 1.0],
  ['Madrid', 40.4168, -3.7038, 1.7],
  ['Barcelona', 41.3874, 2.1686, 1.65],
  ['Valencia', 39.4699, -0.3763, 1.1],
  ['Palma', 39.5696, 2.6502, 1.5],
  ['Marbella', 36.5101, -4.8825, 2.0],
  ['Estepona', 36.4276, -5.1463, 1.4],
  ['Benalmádena', 36.5989, -4.5168, 1.2],
  ['Fuengirola', 36.5397, -4.6262, 1.2],
  ['Cáceres', 39.4753, -6.3724, 0.7],
  ['Mérida', 38.9161, -6.3437, 0.65],
  ['Toledo', 39.8628, -4.0273, 0.85],
  ['Segovia', 40.9429, -4.1088, 0.9],
  ['Salamanca', 40.9701, -5.6635, 0.9],
  ['Valladolid', 41.6523, -4.7245, 0.85],
  ['Zaragoza', 41.6488, -0.8891, 0.9],
  ['Pamplona', 42.8125, -1.6458, 1.05],
  ['Bilbao', 43.263, -2.935, 1.3],
  ['Vitoria-Gasteiz', 42.8467, -2.6716, 1.0],
  ['Oviedo', 43.3614, -5.8494, 0.85],
  ['Gijón', 43.5322, -5.6611, 0.85],
  ['Santander', 43.4623, -3.8099, 1.0],
  ['Murcia', 37.9922, -1.1307, 0.75],
  ['Cartagena', 37.6257, -0.9966, 0.7],
  ['Alicante', 38.3452, -0.481, 0.95],
  ['Elche', 38.2699, -0.7126, 0.8],
  ['Tarragona', 41.1189, 1.2445, 0.9],
  ['Girona', 41.9794, 2.8214, 1.05],
  ['Lleida', 41.6176, 0.62, 0.7],
  ['Santa Cruz de Tenerife', 28.4636, -16.2518, 1.0],
];
/** Share of an agency's stock in each of its eight cities (the first is its home town). */
export const CITY_SHARES = [0.3, 0.2, 0.15, 0.1, 0.08, 0.07, 0.06, 0.04];
export const CITIES_PER_ORG = CITY_SHARES.length;

export const NEIGHBORHOODS = [
  'Centro',
  'Casco Antiguo',
  'Ensanche',
  'La Estación',
  'San José',
  'Los Ángeles',
  'Barrio Alto',
  'El Puerto',
  'Las Lomas',
  'Ciudad Jardín',
  'Santa María',
  'Nueva Andalucía',
];
/** English labels of PROPERTY_TYPES, in the same order (the English translations' titles). */
export const EN_TYPE_LABELS = [
  'Apartment',
  'House',
  'Studio',
  'Penthouse',
  'Duplex',
  'Townhouse',
  'Villa',
  'Land',
  'Commercial premises',
  'Office',
  'Warehouse',
  'Parking space',
  'Room',
];
/** Spanish labels of PROPERTY_TYPES, in the same order. */
export const TYPE_LABELS = [
  'Piso',
  'Casa',
  'Estudio',
  'Ático',
  'Dúplex',
  'Adosado',
  'Villa',
  'Terreno',
  'Local comercial',
  'Oficina',
  'Nave',
  'Plaza de garaje',
  'Habitación',
];
/** Cumulative share of each type (APARTMENT 45 %, HOUSE 15 %, ...). */
export const TYPE_CUMULATIVE = [0.45, 0.6, 0.67, 0.72, 0.77, 0.82, 0.86, 0.89, 0.93, 0.96, 0.97, 0.99, 1];
export const SALE_BASE = [
  220e3, 380e3, 120e3, 450e3, 300e3, 280e3, 900e3, 150e3, 250e3, 260e3, 400e3, 25e3, 60e3,
];
export const RENT_BASE = [950, 1600, 650, 1900, 1300, 1250, 3500, 400, 1400, 1200, 2200, 90, 380];
export const AREA_BASE = [85, 180, 40, 130, 140, 150, 320, 1500, 120, 110, 600, 13, 15];
export const ADJECTIVES = [
  'luminoso',
  'reformado',
  'con vistas',
  'céntrico',
  'amplio',
  'exterior',
  'a estrenar',
  'con encanto',
];
export const SENTENCES = [
  'Cocina equipada y salón comedor con salida a terraza.',
  'Muy cerca de colegios, mercado y transporte público.',
  'Calefacción central y ventanas de doble acristalamiento.',
  'Orientación sur, mucha luz natural durante todo el día.',
  'Zona tranquila con todos los servicios a pie de calle.',
  'Ideal como primera vivienda o inversión para alquiler.',
  'Suelos de tarima, armarios empotrados y trastero incluido.',
  'A diez minutos andando de la playa y del paseo marítimo.',
  'Edificio rehabilitado con ascensor y portero físico.',
  'Posibilidad de plaza de garaje en el mismo edificio.',
];
export const STREETS = [
  'Larios',
  'Mayor',
  'del Carmen',
  'San Andrés',
  'Alcalá',
  'de la Constitución',
  'Real',
  'Colón',
];
/** Probability of each amenity, in AMENITIES order. */
export const AMENITY_SHARES = [
  0.25, 0.2, 0.35, 0.2, 0.45, 0.3, 0.5, 0.35, 0.4, 0.25, 0.1, 0.05, 0.4, 0.08, 0.08, 0.15,
];
export const FIRST_NAMES = ['Lucía', 'Martín', 'Sofía', 'Hugo', 'María José', 'Álvaro', 'Inés', 'Íñigo'];
export const LAST_NAMES = ['García', 'Martínez', 'López', 'Sánchez', 'Pérez', 'Gómez', 'Núñez', 'Ibáñez'];
export const AGENTS_PER_ORG = 4;

/** Centre of a city of the pool (latitude, longitude). */
export function cityCentre(name: string): { latitude: number; longitude: number } {
  const found = CITY_POOL.find(([city]) => city === name);
  if (!found) throw new Error(`unknown city ${name}`);
  return { latitude: found[1], longitude: found[2] };
}

/** The eight cities of the organization with this index (0-based), home town first. */
export function citiesOf(orgIndex: number): string[] {
  return CITY_SHARES.map((_, k) => CITY_POOL[(orgIndex * 3 + k * 5) % CITY_POOL.length]?.[0] ?? '');
}

/** Sale prices around this value are the middle of the stock (priceMax filters in the scenarios). */
export const SALE_PRICE_MIDDLE = 250_000;

/** The languages every organization serves, its default (the stock's own text) first. */
export const PORTAL_LANGUAGES = ['es', 'en'];
/** The organizations that show price drops on the portal: every other one, from the first. */
export const showsPriceDrops = (orgIndex: number) => orgIndex % 2 === 0;

/**
 * Creates `count` ENTERPRISE organizations through the admin API (the service makes their twins),
 * `concurrency` requests at a time; index i of the answer is the organization named for index i.
 */
export async function createOrganizations(
  serviceUrl: string,
  count: number,
  options: { writeLimitPerMinute?: number; concurrency?: number } = {},
): Promise<BenchOrganization[]> {
  const { concurrency = 1, ...limits } = options;
  const admin = adminClient(serviceUrl);
  const organizations: BenchOrganization[] = [];
  const create = async (i: number) => {
    const created = await admin.post<BenchOrganization>('/admin/v1/organizations', {
      name: `Inmobiliaria ${citiesOf(i)[0]} ${i + 1}`,
      plan: 'ENTERPRISE',
      defaultCountry: 'ES',
      defaultCurrency: 'EUR',
      ...limits,
    });
    // The portal settings the creation does not take.
    return admin.patch<BenchOrganization>(`/admin/v1/organizations/${created.id}`, {
      defaultLanguage: PORTAL_LANGUAGES[0],
      languages: PORTAL_LANGUAGES,
      showPriceDrops: showsPriceDrops(i),
    });
  };
  for (let first = 0; first < count; first += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, count - first) }, (_, k) => first + k);
    organizations.push(...(await Promise.all(batch.map(create))));
  }
  return organizations;
}

const sqlArray = (values: readonly (number | string)[]) =>
  `ARRAY[${values.map((v) => (typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`)).join(', ')}]`;

/**
 * A uniform number in [0, 1) from 16 bits of the row's hashes: u(0)..u(23) from h1-h3, u(32)..u(39)
 * from h5 (h4's 16 bytes decide the 16 amenities).
 */
const u = (n: number) => {
  const h = `r.h${Math.floor(n / 8) + 1}`;
  const i = (n % 8) * 2;
  return `((get_byte(${h}, ${i}) * 256 + get_byte(${h}, ${i + 1})) / 65536.0)`;
};

/** Index (1-based) of the first cumulative share above `uniform`. */
const pick = (uniform: string, cumulative: number[]) =>
  `CASE ${cumulative
    .slice(0, -1)
    .map((c, i) => `WHEN ${uniform} < ${c} THEN ${i + 1}`)
    .join(' ')} ELSE ${cumulative.length} END`;

const cumulative = (shares: number[]) =>
  shares.map((_, i) => shares.slice(0, i + 1).reduce((a, b) => a + b, 0));

function propertiesInsert(): string {
  const types = sqlArray(PROPERTY_TYPES);
  const nb = sqlArray(NEIGHBORHOODS);
  const nbFolded = sqlArray(NEIGHBORHOODS.map(fold));
  const labels = sqlArray(TYPE_LABELS);
  const labelsFolded = sqlArray(TYPE_LABELS.map(fold));
  const enLabels = sqlArray(EN_TYPE_LABELS);
  const enLabelsFolded = sqlArray(EN_TYPE_LABELS.map(fold));
  const adjectives = sqlArray(ADJECTIVES);
  const adjectivesFolded = sqlArray(ADJECTIVES.map(fold));
  const sentences = sqlArray(SENTENCES);
  const sentencesFolded = sqlArray(SENTENCES.map(fold));
  const amenityNames = sqlArray(AMENITIES);
  const amenityShares = sqlArray(AMENITY_SHARES);
  // Residential types get bedrooms; the others (land, commercial, office, warehouse, parking) none.
  const bedroomsByType = `CASE p.t WHEN 1 THEN 1 + floor(${u(6)} * 4) WHEN 2 THEN 2 + floor(${u(6)} * 4)
    WHEN 3 THEN 0 WHEN 4 THEN 2 + floor(${u(6)} * 3) WHEN 5 THEN 2 + floor(${u(6)} * 3)
    WHEN 6 THEN 2 + floor(${u(6)} * 4) WHEN 7 THEN 3 + floor(${u(6)} * 4) WHEN 13 THEN 1 ELSE 0 END`;
  return `
INSERT INTO properties (id, organization_id, code, title, description, transaction_type, type, status,
  published_on_portal, featured, price, previous_price, currency, city, neighborhood, address, zip_code,
  latitude, longitude, approximate_location, address_visibility, portal_latitude, portal_longitude,
  bedrooms, bathrooms, area, amenities, photos, translations, agent_id, internal_notes, custom_fields,
  search_city, search_neighborhood, search_text, created_at, updated_at)
SELECT
  'prop_' || substr(md5('prop/' || r.org_idx || '/' || r.g), 1, 22),
  r.org_id,
  q.code,
  q.title,
  q.description,
  p.tx,
  (${types})[p.t],
  p.status,
  p.published,
  ${u(5)} < 0.05,
  q.price,
  CASE WHEN ${u(36)} < 0.15 THEN q.price + CASE p.tx WHEN 'RENT' THEN 50 ELSE 15000 END END,
  'EUR',
  c.city,
  p.neighborhood,
  'Calle ' || (${sqlArray(STREETS)})[1 + floor(${u(17)} * ${STREETS.length})::int] || ', ' || (1 + floor(${u(18)} * 120)::int),
  lpad((c.zip_base + floor(${u(18)} * 40))::int::text, 5, '0'),
  q.latitude,
  q.longitude,
  q.approximate,
  q.visibility,
  CASE q.visibility WHEN 'HIDDEN' THEN floor(q.latitude * 100 + 0.5) / 100
    WHEN 'STREET' THEN floor(q.latitude * 1000 + 0.5) / 1000 ELSE q.latitude END,
  CASE q.visibility WHEN 'HIDDEN' THEN floor(q.longitude * 100 + 0.5) / 100
    WHEN 'STREET' THEN floor(q.longitude * 1000 + 0.5) / 1000 ELSE q.longitude END,
  q.bedrooms,
  q.bathrooms,
  q.area,
  ARRAY(SELECT a.name FROM unnest(${amenityNames}, ${amenityShares}) WITH ORDINALITY AS a(name, share, i)
        WHERE get_byte(r.h4, (a.i - 1)::int) < a.share * 256 ORDER BY a.i),
  CASE WHEN ${u(38)} < 0.1 THEN
    (SELECT jsonb_agg(jsonb_build_object(
        'id', 'ph_' || substr(md5('photo/' || r.org_idx || '/' || r.g || '/' || k), 1, 22),
        'url', 'https://cdn.example.com/bench/' || r.org_idx || '/' || r.g || '/' || k || '/1600.webp',
        'caption', CASE k WHEN 1 THEN 'Fachada' WHEN 2 THEN 'Salón' ELSE NULL END,
        'altText', CASE k WHEN 1 THEN 'Fachada del edificio' ELSE 'Interior de la vivienda' END,
        'width', 4000, 'height', 3000,
        'sizes', (SELECT jsonb_agg(jsonb_build_object('width', w, 'height', w * 3 / 4,
            'url', 'https://cdn.example.com/bench/' || r.org_idx || '/' || r.g || '/' || k || '/' || w || '.webp') ORDER BY w)
          FROM unnest(ARRAY[480, 960, 1600]) AS w),
        'jpegUrl', 'https://cdn.example.com/bench/' || r.org_idx || '/' || r.g || '/' || k || '/1600.jpg') ORDER BY k)
     FROM generate_series(1, 3 + floor(${u(19)} * 6)::int) AS k)
  ELSE
    (SELECT jsonb_agg(jsonb_build_object(
        'url', 'https://cdn.example.com/bench/' || r.org_idx || '/' || r.g || '/' || k || '.jpg',
        'caption', CASE k WHEN 1 THEN 'Fachada' WHEN 2 THEN 'Salón' ELSE NULL END) ORDER BY k)
     FROM generate_series(1, 3 + floor(${u(19)} * 6)::int) AS k)
  END,
  CASE WHEN q.translated
       THEN jsonb_build_object('en', jsonb_build_object('title', q.en_title, 'description', q.en_description))
       ELSE '{}'::jsonb END,
  CASE WHEN ${u(20)} < 0.1 THEN NULL
       ELSE 'agt_' || substr(md5('agent/' || r.org_idx || '/' || floor(${u(21)} * ${AGENTS_PER_ORG})::int), 1, 22) END,
  CASE WHEN ${u(22)} < 0.3 THEN 'Llaves en la oficina; el propietario prefiere visitas por la tarde.' END,
  jsonb_build_object('source', 'bench', 'floor', floor(${u(22)} * 8)::int),
  c.search_city,
  coalesce(p.neighborhood_folded, ''),
  lower(q.code) || ' ' || q.title_folded || ' ' || q.description_folded || ' ' || c.search_city
    || CASE WHEN q.translated
            THEN ' ' || coalesce(p.neighborhood_folded, '') || ' ' || q.en_title_folded || ' ' || q.en_description_folded
            ELSE coalesce(' ' || p.neighborhood_folded, '') END,
  q.created_at,
  q.created_at + ${u(23)} * interval '60 days'
FROM (
  SELECT o.idx AS org_idx, o.id AS org_id, g,
         decode(md5('a/' || o.idx || '/' || g), 'hex') AS h1,
         decode(md5('b/' || o.idx || '/' || g), 'hex') AS h2,
         decode(md5('c/' || o.idx || '/' || g), 'hex') AS h3,
         decode(md5('d/' || o.idx || '/' || g), 'hex') AS h4,
         decode(md5('e/' || o.idx || '/' || g), 'hex') AS h5
  FROM bench_orgs o CROSS JOIN generate_series($1::int, $2::int) AS g
  WHERE o.idx BETWEEN $3 AND $4
  OFFSET 0
) r
CROSS JOIN LATERAL (
  SELECT ${pick(u(0), cumulative(CITY_SHARES))} - 1 AS city_k,
         CASE WHEN ${u(1)} < 0.6 THEN 'SALE' WHEN ${u(1)} < 0.95 THEN 'RENT' ELSE 'SALE_OR_RENT' END AS tx,
         ${pick(u(2), TYPE_CUMULATIVE)} AS t,
         CASE WHEN ${u(3)} < 0.9 THEN 'ACTIVE' WHEN ${u(3)} < 0.94 THEN 'RESERVED'
              WHEN ${u(3)} < 0.97 THEN 'SOLD' WHEN ${u(3)} < 0.99 THEN 'RENTED' ELSE 'INACTIVE' END AS status,
         NOT (${u(3)} >= 0.85 AND ${u(3)} < 0.9) AS published,
         CASE WHEN ${u(10)} < 0.05 THEN NULL ELSE (${nb})[1 + floor(power(${u(11)}, 1.5) * ${NEIGHBORHOODS.length})::int] END AS neighborhood,
         CASE WHEN ${u(10)} < 0.05 THEN NULL ELSE (${nbFolded})[1 + floor(power(${u(11)}, 1.5) * ${NEIGHBORHOODS.length})::int] END AS neighborhood_folded,
         1 + floor(${u(12)} * ${ADJECTIVES.length})::int AS adj,
         1 + floor(${u(13)} * ${SENTENCES.length})::int AS s1,
         1 + floor(${u(14)} * ${SENTENCES.length})::int AS s2
  OFFSET 0
) p
JOIN bench_org_cities c ON c.org_idx = r.org_idx AND c.k = p.city_k
CROSS JOIN LATERAL (
  SELECT b.*,
         (${labels})[p.t] || ' ' || (${adjectives})[p.adj] || ' en ' || coalesce(p.neighborhood, c.city) AS title,
         (${labelsFolded})[p.t] || ' ' || (${adjectivesFolded})[p.adj] || ' en ' || coalesce(p.neighborhood_folded, c.search_city) AS title_folded,
         (${enLabels})[p.t] || ' in ' || coalesce(p.neighborhood, c.city) AS en_title,
         (${enLabelsFolded})[p.t] || ' in ' || coalesce(p.neighborhood_folded, c.search_city) AS en_title_folded
  FROM (
    SELECT 'REF-' || lpad(r.g::text, 6, '0') AS code,
           ${bedroomsByType} AS bedrooms,
           CASE WHEN p.t IN (1, 2, 3, 4, 5, 6, 7, 13) THEN 1 + floor(${u(7)} * 3)::int ELSE floor(${u(7)} * 2)::int END AS bathrooms,
           CASE WHEN ${u(9)} < 0.02 THEN NULL
                ELSE round(((${sqlArray(AREA_BASE)})[p.t] * (0.6 + ${u(8)} * 0.9))::numeric, 2) END AS area,
           CASE WHEN p.tx = 'RENT'
                THEN round((${sqlArray(RENT_BASE)})[p.t] * c.price_factor * exp((${u(4)} - 0.5) * 1.0) / 10) * 10
                ELSE round((${sqlArray(SALE_BASE)})[p.t] * c.price_factor * exp((${u(4)} - 0.5) * 1.2) / 1000) * 1000 END AS price,
           CASE WHEN ${u(34)} < 0.03 THEN NULL ELSE round((c.lat + (${u(15)} - 0.5) * 0.08)::numeric, 6)::float8 END AS latitude,
           CASE WHEN ${u(34)} < 0.03 THEN NULL ELSE round((c.lng + (${u(16)} - 0.5) * 0.1)::numeric, 6)::float8 END AS longitude,
           ${u(33)} < 0.2 AS approximate,
           CASE WHEN ${u(33)} < 0.2 THEN 'HIDDEN' WHEN ${u(35)} < 0.25 THEN 'STREET' ELSE 'EXACT' END AS visibility,
           timestamptz '2026-11-01 00:00:00+00' - ${u(32)} * interval '730 days' AS created_at
  ) b
) q0
CROSS JOIN LATERAL (
  SELECT q0.*,
         q0.title || '. ' || q0.bedrooms || ' dormitorios, ' || q0.bathrooms || ' baños, '
           || coalesce(round(q0.area)::text || ' m2', 'superficie a consultar') || '. '
           || (${sentences})[p.s1] || ' ' || (${sentences})[p.s2] AS description,
         q0.title_folded || '. ' || q0.bedrooms || ' dormitorios, ' || q0.bathrooms || ' banos, '
           || coalesce(round(q0.area)::text || ' m2', 'superficie a consultar') || '. '
           || (${sentencesFolded})[p.s1] || ' ' || (${sentencesFolded})[p.s2] AS description_folded,
         q0.en_title || '. ' || q0.bedrooms || ' bedrooms, ' || q0.bathrooms || ' bathrooms.' AS en_description,
         q0.en_title_folded || '. ' || q0.bedrooms || ' bedrooms, ' || q0.bathrooms || ' bathrooms.' AS en_description_folded,
         ${u(37)} < 0.3 AS translated
) q`;
}

export interface LoadOptions {
  organizations: Array<{ id: string }>;
  perOrg: number;
  /** Progress lines. */
  log: (line: string) => void;
}

const ROWS_PER_STATEMENT = 10_000;

/**
 * Inserts AGENTS_PER_ORG agents and `perOrg` properties per organization (index i of the list is
 * the organization's stock recipe), checks the derived columns, then VACUUM ANALYZE (the state
 * autovacuum reaches on its own after a bulk insert: statistics and a set visibility map).
 */
export async function loadPortalStock(databaseUrl: string, options: LoadOptions): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const orgs = options.organizations;
    await client.query('CREATE TEMP TABLE bench_orgs (idx int PRIMARY KEY, id text NOT NULL)');
    await client.query('INSERT INTO bench_orgs SELECT * FROM unnest($1::int[], $2::text[])', [
      orgs.map((_, i) => i),
      orgs.map((o) => o.id),
    ]);
    const cityRows = orgs.flatMap((_, i) =>
      CITY_SHARES.map((__, k) => {
        const poolIndex = (i * 3 + k * 5) % CITY_POOL.length;
        const [city, lat, lng, factor] = CITY_POOL[poolIndex] ?? ['', 0, 0, 1];
        return { i, k, city, folded: fold(city), lat, lng, factor, zip: 1000 + poolIndex * 1000 };
      }),
    );
    await client.query(
      `CREATE TEMP TABLE bench_org_cities AS
       SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::float8[], $6::float8[], $7::float8[], $8::int[])
         AS t(org_idx, k, city, search_city, lat, lng, price_factor, zip_base)`,
      [
        cityRows.map((r) => r.i),
        cityRows.map((r) => r.k),
        cityRows.map((r) => r.city),
        cityRows.map((r) => r.folded),
        cityRows.map((r) => r.lat),
        cityRows.map((r) => r.lng),
        cityRows.map((r) => r.factor),
        cityRows.map((r) => r.zip),
      ],
    );

    const started = performance.now();
    await client.query(
      `INSERT INTO agents (id, organization_id, first_name, last_name, email, phone, photo_url)
       SELECT 'agt_' || substr(md5('agent/' || o.idx || '/' || k), 1, 22), o.id,
              (${sqlArray(FIRST_NAMES)})[1 + (o.idx + k) % ${FIRST_NAMES.length}],
              (${sqlArray(LAST_NAMES)})[1 + (o.idx * 3 + k) % ${LAST_NAMES.length}],
              'agente' || k || '@agencia' || o.idx || '.example.com',
              '+3460000' || lpad((o.idx * ${AGENTS_PER_ORG} + k)::text, 4, '0'),
              'https://cdn.example.com/bench/agents/' || o.idx || '/' || k || '.jpg'
       FROM bench_orgs o CROSS JOIN generate_series(0, ${AGENTS_PER_ORG - 1}) AS k`,
    );

    const insert = propertiesInsert();
    // Statements of about ROWS_PER_STATEMENT rows: whole organizations, or slices of a big one.
    const orgsPerStatement = Math.max(1, Math.floor(ROWS_PER_STATEMENT / options.perOrg));
    const rowsPerSlice = Math.min(options.perOrg, ROWS_PER_STATEMENT);
    let inserted = 0;
    for (let first = 0; first < orgs.length; first += orgsPerStatement) {
      const last = Math.min(orgs.length, first + orgsPerStatement) - 1;
      for (let from = 1; from <= options.perOrg; from += rowsPerSlice) {
        const to = Math.min(options.perOrg, from + rowsPerSlice - 1);
        const result = await client.query(insert, [from, to, first, last]);
        inserted += result.rowCount ?? 0;
        options.log(
          `  ${inserted.toLocaleString('en')} properties (${((performance.now() - started) / 1000).toFixed(0)} s)`,
        );
      }
    }
    await verifyDerivedColumns(client, options.log);
    await client.query('VACUUM (ANALYZE) properties');
    await client.query('VACUUM (ANALYZE) agents');
    options.log(`  loaded and analyzed in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await client.end();
  }
}

/**
 * The derived columns must be what propertyColumns() would have written for the same input: every
 * row, or a sample of `sample` rows spread over the table (bench/lib/scale-data.ts, 1M rows).
 */
export async function verifyDerivedColumns(
  client: pg.Client,
  log: (line: string) => void,
  sample?: number,
): Promise<void> {
  const { rows } = await client.query<{
    id: string;
    code: string;
    title: string;
    description: string;
    city: string;
    neighborhood: string | null;
    latitude: number | null;
    longitude: number | null;
    approximate_location: boolean;
    address_visibility: AddressVisibility;
    translations: PropertyTranslations;
    portal_latitude: number | null;
    portal_longitude: number | null;
    search_city: string;
    search_neighborhood: string;
    search_text: string;
  }>(
    `SELECT id, code, title, description, city, neighborhood, latitude, longitude, approximate_location,
            address_visibility, translations, portal_latitude, portal_longitude, search_city,
            search_neighborhood, search_text
     FROM properties${sample === undefined ? '' : ` ORDER BY md5(id) LIMIT ${Math.floor(sample)}`}`,
  );
  let wrong = 0;
  for (const row of rows) {
    const expected = propertyColumns(
      {
        code: row.code,
        title: row.title,
        description: row.description,
        city: row.city,
        neighborhood: row.neighborhood,
        transactionType: 'SALE',
        type: 'APARTMENT',
        price: 0,
        coordinates:
          row.latitude === null || row.longitude === null
            ? null
            : { latitude: row.latitude, longitude: row.longitude },
        // Both: propertyColumns refuses an approximate location that is not HIDDEN.
        approximateLocation: row.approximate_location,
        addressVisibility: row.address_visibility,
        translations: row.translations,
      } satisfies CreatePropertyBody,
      { defaultCurrency: 'EUR', defaultLanguage: 'es' },
    );
    const same =
      expected.searchCity === row.search_city &&
      expected.searchNeighborhood === row.search_neighborhood &&
      expected.searchText === row.search_text &&
      expected.portalLatitude === row.portal_latitude &&
      expected.portalLongitude === row.portal_longitude &&
      expected.title === row.title;
    if (!same) {
      if (wrong < 3) log(`  derived columns differ for ${row.id}: ${JSON.stringify({ expected, row })}`);
      wrong++;
    }
  }
  if (wrong > 0)
    throw new Error(`${wrong} of ${rows.length} rows have derived columns propertyColumns() would not write`);
  log(
    `  derived columns of ${sample === undefined ? 'all' : 'a sample of'} ${rows.length.toLocaleString('en')} rows match propertyColumns()`,
  );
}
