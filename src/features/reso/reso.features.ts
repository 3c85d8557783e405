// Our amenities in RESO Data Dictionary 2.0 fields (docs/reso.md, "Features"): each amenity that has a
// DD field and value meaning the same thing is served there; the others are not served. One table, from
// which the records, `$filter` (has, any, all) and the Lookup resource all read.
import type { Amenity } from '../../shared/property-vocabulary.ts';

/**
 * The multi-valued lookups (DD 2.0 `Collection(...)` fields) we fill from amenities: each field, and the
 * DD value an amenity gives it. An amenity the table does not name is in none of them.
 */
export const MULTI_LOOKUPS = {
  View: { seaView: 'Ocean' },
  ExteriorFeatures: { balcony: 'Balcony', garden: 'Garden' },
  PatioAndPorchFeatures: { terrace: 'Terrace' },
  PetsAllowed: { petFriendly: 'Yes' },
} as const satisfies Record<string, Partial<Record<Amenity, string>>>;
export type MultiLookupField = keyof typeof MULTI_LOOKUPS;
export const MULTI_LOOKUP_FIELDS = Object.keys(MULTI_LOOKUPS) as MultiLookupField[];

/**
 * The Yes/No fields an amenity sets: true when the listing has it, null when it does not say (our
 * amenities list what a listing has; a missing one is not a "no").
 */
export const AMENITY_FLAGS = {
  CoolingYN: 'airConditioning',
  HeatingYN: 'heating',
  FireplaceYN: 'fireplace',
} as const satisfies Record<string, Amenity>;
export type AmenityFlagField = keyof typeof AMENITY_FLAGS;

/** DD 2.0's single lookup Furnished: `Furnished` for a furnished listing, null otherwise. */
export const FURNISHED_AMENITY: Amenity = 'furnished';
export const FURNISHED_VALUE = 'Furnished' as const;

/** A multi-valued lookup's values for a listing's amenities, in the table's order. */
export function multiValuesOf(field: MultiLookupField, amenities: readonly string[]): string[] {
  const table: Partial<Record<string, string>> = MULTI_LOOKUPS[field];
  return Object.entries(table)
    .filter(([amenity]) => amenities.includes(amenity))
    .map(([, value]) => value as string);
}

/** The amenities whose value, in this field, is one of `values`. */
export function amenitiesGiving(field: MultiLookupField, values: readonly string[]): string[] {
  const table: Partial<Record<string, string>> = MULTI_LOOKUPS[field];
  return Object.entries(table)
    .filter(([, value]) => values.includes(value as string))
    .map(([amenity]) => amenity);
}

/** Every value a multi-valued lookup can take in our records. */
export function multiLookupValues(field: MultiLookupField): string[] {
  return Object.values(MULTI_LOOKUPS[field]) as string[];
}

/** The amenity-derived fields of a record. */
export function featuresOf(amenities: readonly string[]) {
  const has = (amenity: string) => amenities.includes(amenity);
  return {
    View: multiValuesOf('View', amenities),
    ExteriorFeatures: multiValuesOf('ExteriorFeatures', amenities),
    PatioAndPorchFeatures: multiValuesOf('PatioAndPorchFeatures', amenities),
    PetsAllowed: multiValuesOf('PetsAllowed', amenities),
    Furnished: has(FURNISHED_AMENITY) ? FURNISHED_VALUE : null,
    CoolingYN: has(AMENITY_FLAGS.CoolingYN) ? (true as const) : null,
    HeatingYN: has(AMENITY_FLAGS.HeatingYN) ? (true as const) : null,
    FireplaceYN: has(AMENITY_FLAGS.FireplaceYN) ? (true as const) : null,
  };
}
