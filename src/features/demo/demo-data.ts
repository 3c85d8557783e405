/**
 * The demo agency's listings: 150 properties across Málaga, Madrid, Barcelona, Valencia and Sevilla
 * (the agency itself, with its portal settings and agents, is in demo-agency.ts).
 *
 * The properties are generated, not written out: per-city templates (neighborhoods with real
 * coordinates and zip codes, streets, prices per m² for sale and rent) and a seeded PRNG, so every
 * seed produces the same listings. Special cases come from the position in the city's list, so the
 * counts are exact: per city 2 featured, 5 approximate locations, 2 unpublished, 1 reserved,
 * 1 sold or rented (and 1 inactive in Málaga and Barcelona); 128 are on the portal.
 *
 * Every other listing has a Spanish translation (the organization serves en and es), and listings at
 * positions 4, 10, 16, ... show only their street on the portal (addressVisibility STREET).
 *
 * Photos are stable placeholder URLs (`picsum.photos/seed/<code>-<n>`) with a caption saying what
 * each one shows, so a page that cannot load images still reads well.
 */
import type { Amenity, CreatePropertyBody, PropertyType, TransactionType } from '../properties/index.ts';
import { CITIES, type AgentKey } from './demo-cities.ts';

export type { AgentKey } from './demo-cities.ts';

export const DEMO_CITIES = CITIES.map((c) => c.city);
const PER_CITY = 30;

interface TypeTemplate {
  type: PropertyType;
  weight: number;
  /** Built area range in m². */
  area: [number, number];
  bedrooms: [number, number];
  /** Price per m² against the city's average. */
  factor: number;
  noun: string;
  /** The noun in Spanish, for the listings' Spanish translation. */
  sustantivo: string;
}

const TYPES: TypeTemplate[] = [
  {
    type: 'APARTMENT',
    weight: 40,
    area: [55, 130],
    bedrooms: [1, 4],
    factor: 1,
    noun: 'apartment',
    sustantivo: 'piso',
  },
  {
    type: 'STUDIO',
    weight: 8,
    area: [28, 45],
    bedrooms: [0, 0],
    factor: 1.1,
    noun: 'studio',
    sustantivo: 'estudio',
  },
  {
    type: 'PENTHOUSE',
    weight: 8,
    area: [80, 180],
    bedrooms: [2, 4],
    factor: 1.3,
    noun: 'penthouse',
    sustantivo: 'ático',
  },
  {
    type: 'DUPLEX',
    weight: 7,
    area: [90, 160],
    bedrooms: [2, 4],
    factor: 1.05,
    noun: 'duplex',
    sustantivo: 'dúplex',
  },
  {
    type: 'HOUSE',
    weight: 8,
    area: [120, 280],
    bedrooms: [3, 5],
    factor: 0.95,
    noun: 'house',
    sustantivo: 'casa',
  },
  {
    type: 'TOWNHOUSE',
    weight: 6,
    area: [110, 200],
    bedrooms: [3, 4],
    factor: 0.9,
    noun: 'townhouse',
    sustantivo: 'adosado',
  },
  {
    type: 'VILLA',
    weight: 4,
    area: [220, 450],
    bedrooms: [4, 6],
    factor: 1.25,
    noun: 'villa',
    sustantivo: 'villa',
  },
  {
    type: 'COMMERCIAL',
    weight: 5,
    area: [60, 250],
    bedrooms: [0, 0],
    factor: 0.75,
    noun: 'commercial premises',
    sustantivo: 'local comercial',
  },
  {
    type: 'OFFICE',
    weight: 4,
    area: [50, 200],
    bedrooms: [0, 0],
    factor: 0.85,
    noun: 'office',
    sustantivo: 'oficina',
  },
  {
    type: 'PARKING',
    weight: 3,
    area: [11, 15],
    bedrooms: [0, 0],
    factor: 0,
    noun: 'parking space',
    sustantivo: 'plaza de garaje',
  },
];
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const TOTAL_WEIGHT = TYPES.reduce((sum, t) => sum + t.weight, 0);

/** mulberry32: a tiny seeded PRNG, so the demo is the same on every seed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ROOMS: Partial<Record<Amenity, string>> = {
  terrace: 'Terrace',
  pool: 'Swimming pool',
  garden: 'Garden',
  seaView: 'View of the sea',
  balcony: 'Balcony',
  gym: 'Residents’ gym',
  fireplace: 'Living room with fireplace',
};

/** Deterministic listings for the demo agency; `agentIds` maps DEMO_AGENTS keys to created ids. */
export function demoProperties(agentIds: Record<AgentKey, string>): CreatePropertyBody[] {
  const random = prng(20_260_101);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const chance = (p: number) => random() < p;

  const properties: CreatePropertyBody[] = [];
  CITIES.forEach((template, cityIndex) => {
    for (let i = 0; i < PER_CITY; i++) {
      let roll = random() * TOTAL_WEIGHT;
      const kind = TYPES.find((t) => (roll -= t.weight) < 0) ?? (TYPES[0] as TypeTemplate);
      const isHouse = ['HOUSE', 'TOWNHOUSE', 'VILLA'].includes(kind.type);
      const hood = pick(isHouse ? template.neighborhoods.filter((n) => n.houses) : template.neighborhoods);
      const transactionType: TransactionType = [1, 4, 6].includes(i % 10)
        ? 'RENT'
        : i % 10 === 9
          ? 'SALE_OR_RENT'
          : 'SALE';
      const residential = !['COMMERCIAL', 'OFFICE', 'PARKING'].includes(kind.type);
      const area = between(kind.area[0], kind.area[1]);
      // About one bedroom per 30-35 m², within what the type allows.
      const bedrooms = Math.min(
        kind.bedrooms[1],
        Math.max(kind.bedrooms[0], Math.round(area / 32) - (chance(0.4) ? 1 : 0)),
      );
      const bathrooms =
        kind.type === 'PARKING' ? 0 : Math.max(1, Math.ceil(bedrooms / 2) + (chance(0.3) ? 1 : 0));
      const level = hood.factor * (0.9 + random() * 0.2);
      let price: number;
      if (kind.type === 'PARKING') {
        price = transactionType === 'RENT' ? between(8, 16) * 10 : between(20, 45) * 1000;
      } else if (transactionType === 'RENT') {
        // Large homes rent for less per m².
        const size = area > 150 ? 0.8 : 1;
        price = Math.round((area * template.rentPerM2 * kind.factor * level * size) / 25) * 25;
      } else {
        price = Math.round((area * template.salePerM2 * kind.factor * level) / 5000) * 5000;
      }

      const amenities = new Set<Amenity>();
      if (residential) {
        if (['APARTMENT', 'PENTHOUSE', 'DUPLEX', 'STUDIO'].includes(kind.type) && chance(0.75))
          amenities.add('elevator');
        if (kind.type === 'PENTHOUSE' || chance(0.35)) amenities.add('terrace');
        if (chance(0.3)) amenities.add('balcony');
        if (isHouse) {
          amenities.add('garden');
          if (kind.type === 'VILLA' || chance(0.5)) amenities.add('pool');
          if (chance(0.6)) amenities.add('parking');
        } else if (chance(0.25)) {
          amenities.add('parking');
        }
        if (chance(0.6)) amenities.add('airConditioning');
        if (chance(0.5)) amenities.add('heating');
        if (transactionType !== 'SALE' && chance(0.6)) amenities.add('furnished');
        if (chance(0.35)) amenities.add('petFriendly');
        if (chance(0.3)) amenities.add('storage');
        if (hood.seaside && chance(0.6)) amenities.add('seaView');
        if (chance(0.1)) amenities.add('gym');
        if (kind.type === 'VILLA' && chance(0.5)) amenities.add('fireplace');
      } else if (kind.type !== 'PARKING') {
        if (chance(0.7)) amenities.add('airConditioning');
        if (chance(0.6)) amenities.add('accessible');
        if (chance(0.3)) amenities.add('storage');
      } else {
        amenities.add('security');
      }

      const code = `${template.prefix}-${String(i + 1).padStart(3, '0')}`;
      const rooms = residential
        ? bedrooms === 0
          ? 'Studio'
          : `${bedrooms}-bedroom ${kind.noun}`
        : kind.noun[0]?.toUpperCase() + kind.noun.slice(1);
      const highlight = amenities.has('seaView')
        ? ' with sea views'
        : amenities.has('pool')
          ? ' with pool'
          : amenities.has('terrace')
            ? ' with terrace'
            : '';
      const title = `${rooms}${highlight} in ${hood.name}`;
      const extras = [...amenities].map((a) => ROOMS[a]?.toLowerCase()).filter(Boolean);
      const description = [
        residential
          ? `${bedrooms === 0 ? 'Open-plan studio' : `Bright ${kind.noun} with ${bedrooms} bedroom${bedrooms > 1 ? 's' : ''} and ${bathrooms} bathroom${bathrooms > 1 ? 's' : ''}`}, ${area} m² built.`
          : `${rooms} of ${area} m²${kind.type === 'PARKING' ? ' in a gated garage' : ' at street level'}.`,
        extras.length > 0 ? `Features ${extras.join(', ')}.` : '',
        `Located in ${hood.name}, ${template.city}, close to shops, schools and public transport.`,
        transactionType === 'RENT' ? 'Minimum contract of one year; two months’ deposit.' : '',
      ]
        .filter(Boolean)
        .join(' ');

      const captions = [
        kind.type === 'PARKING' ? 'Garage entrance' : residential ? 'Living room' : 'Main room',
        ...[...amenities].map((a) => ROOMS[a]).filter((c): c is string => c !== undefined),
        ...(residential ? ['Kitchen', 'Main bedroom', 'Bathroom'] : ['Façade']),
      ];
      const photoCount = Math.min(captions.length, between(2, 5));
      const photos = captions.slice(0, photoCount).map((caption, n) => ({
        // Lorem Picsum serves a JPEG for `.jpg`: an address Kyero's feed takes (its schema wants the ending).
        url: `https://picsum.photos/seed/${code}-${n + 1}/800/600.jpg`,
        caption: `${caption} – ${title}`,
      }));

      // Exact counts from the position in the city's list (see the file comment).
      let status: CreatePropertyBody['status'] = 'ACTIVE';
      if (i === 3) status = 'RESERVED';
      if (i === 7)
        status = transactionType === 'RENT' ? 'RENTED' : transactionType === 'SALE' ? 'SOLD' : 'RESERVED';
      if (i === 13 && (cityIndex === 0 || cityIndex === 2)) status = 'INACTIVE';
      const street = pick(hood.streets);
      properties.push({
        code,
        title,
        description,
        transactionType,
        type: kind.type,
        status,
        publishedOnPortal: i !== 5 && i !== 19,
        featured: i === 0 || i === 10,
        price,
        city: template.city,
        neighborhood: hood.name,
        address: `${street} ${between(1, 120)}`,
        zipCode: hood.zipCode,
        coordinates: {
          latitude: Math.round((hood.latitude + (random() - 0.5) * 0.008) * 1e6) / 1e6,
          longitude: Math.round((hood.longitude + (random() - 0.5) * 0.008) * 1e6) / 1e6,
        },
        // HIDDEN (approximate) at 2, 8, 14, ...; the street only at 4, 10, 16, ...; EXACT otherwise.
        approximateLocation: i % 6 === 2,
        addressVisibility: i % 6 === 2 ? 'HIDDEN' : i % 6 === 4 ? 'STREET' : 'EXACT',
        // Every other listing also in Spanish (the organization serves en and es).
        ...(i % 2 === 0
          ? {
              translations: {
                es: {
                  title: `${residential && bedrooms > 0 ? `${capitalized(kind.sustantivo)} de ${bedrooms} dormitorio${bedrooms > 1 ? 's' : ''}` : capitalized(kind.sustantivo)} en ${hood.name}`,
                  description: `${capitalized(kind.sustantivo)} de ${area} m² construidos en ${hood.name}, ${template.city}, cerca de comercios, colegios y transporte público.`,
                },
              },
            }
          : {}),
        bedrooms,
        bathrooms,
        area,
        amenities: [...amenities],
        photos,
        agentId: i % 15 === 14 ? null : agentIds[template.agent],
        internalNotes:
          i % 4 === 0
            ? pick(['Keys at the office.', 'Owner open to offers.', 'Visits only in the afternoon.'])
            : null,
        customFields: residential
          ? { energyRating: pick(['A', 'B', 'C', 'D', 'E']), yearBuilt: between(1925, 2022) }
          : {},
      });
    }
  });
  return properties;
}
