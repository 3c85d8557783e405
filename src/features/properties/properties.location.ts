// What a listing shows of where it is, outside the agency (issue 25 item 5, decision 0231): the portal,
// the feeds and MCP all read it from here. EXACT shows the address; STREET the street without its
// number; HIDDEN neither address nor zip code (SPEC's approximate location). Coordinates are rounded
// when written (portal_latitude/longitude, what the portal filters and sorts on) to the listing's
// precision, by default 3 decimals (about 100 m) for STREET and 2 (about 1 km) for HIDDEN.
import { Errors } from '../../platform/errors/errors.ts';
import type { AddressVisibility } from './properties.schema.ts';

/** Decimals shown by default, and at most, per visibility (EXACT: as written, up to 6). */
const PRECISION: Record<AddressVisibility, { byDefault: number | null; max: number }> = {
  EXACT: { byDefault: null, max: 6 },
  STREET: { byDefault: 3, max: 3 },
  HIDDEN: { byDefault: 2, max: 2 },
};

export interface LocationInput {
  addressVisibility?: AddressVisibility;
  approximateLocation?: boolean;
  coordinatePrecision?: number | null;
  coordinates?: { latitude: number; longitude: number } | null;
}

/**
 * The visibility a write asks for: `addressVisibility`, else `approximateLocation` (true: HIDDEN).
 * 400 when both are given and disagree, or when the precision shows more than the visibility allows.
 */
export function locationOf(input: LocationInput): {
  addressVisibility: AddressVisibility;
  coordinatePrecision: number | null;
  portalLatitude: number | null;
  portalLongitude: number | null;
} {
  const visibility = input.addressVisibility ?? (input.approximateLocation ? 'HIDDEN' : 'EXACT');
  if (input.approximateLocation !== undefined && input.approximateLocation !== (visibility === 'HIDDEN')) {
    throw Errors.invalidField(
      'body.approximateLocation',
      `contradicts addressVisibility ${visibility}: approximateLocation is true exactly when it is HIDDEN`,
    );
  }
  const precision = input.coordinatePrecision ?? null;
  const { byDefault, max } = PRECISION[visibility];
  if (precision !== null && precision > max) {
    throw Errors.invalidField(
      'body.coordinatePrecision',
      `shows more than addressVisibility ${visibility} allows: at most ${max} decimals`,
    );
  }
  const decimals = precision ?? byDefault;
  const shown = (value: number | undefined) =>
    value === undefined ? null : decimals === null ? value : roundTo(value, decimals);
  return {
    addressVisibility: visibility,
    coordinatePrecision: precision,
    portalLatitude: shown(input.coordinates?.latitude),
    portalLongitude: shown(input.coordinates?.longitude),
  };
}

function roundTo(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}

/** Words that only announce a number: `nº 12`, `no. 12`, `#12`. */
const NUMBER_MARKERS = new Set(['nº', 'n°', 'no.', 'num', 'num.', 'número', 'numero', '#', 's/n']);

/**
 * The street of an address without its house number, floor or door: the part before the first comma,
 * without the words that hold a digit (`12`, `12B`, `3ºA`) or announce a number. `Calle Mayor 12, 3ºB`
 * -> `Calle Mayor`; `221B Baker Street` -> `Baker Street`. Null when nothing is left.
 */
export function streetOf(address: string): string | null {
  const firstPart = address.split(',')[0] ?? '';
  const words = firstPart
    .split(/\s+/)
    .filter((word) => word !== '' && !/\d/.test(word) && !NUMBER_MARKERS.has(word.toLowerCase()));
  const street = words.join(' ').trim();
  return street === '' ? null : street;
}

/** The address and zip code the portal, feeds and MCP show. */
export function shownAddress(p: {
  address: string | null;
  zipCode: string | null;
  addressVisibility: string;
}): { address: string | null; zipCode: string | null } {
  switch (p.addressVisibility) {
    case 'EXACT':
      return { address: p.address, zipCode: p.zipCode };
    case 'STREET':
      return { address: p.address === null ? null : streetOf(p.address), zipCode: p.zipCode };
    default:
      return { address: null, zipCode: null };
  }
}
