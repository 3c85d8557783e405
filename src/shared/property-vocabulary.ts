// The property vocabulary: values the API accepts and shows. Shared by the properties feature and
// the CLI's file import (which must read column values the way the API names them); imports nothing.

export const TRANSACTION_TYPES = ['SALE', 'RENT', 'SALE_OR_RENT'] as const;
/** The property types an agency can list (docs/decisions/0036-property-model.md). */
export const PROPERTY_TYPES = [
  'APARTMENT',
  'HOUSE',
  'STUDIO',
  'PENTHOUSE',
  'DUPLEX',
  'TOWNHOUSE',
  'VILLA',
  'LAND',
  'COMMERCIAL',
  'OFFICE',
  'WAREHOUSE',
  'PARKING',
  'ROOM',
] as const;
/**
 * A listing's lifecycle (DESIGN's five, and DRAFT since issue 25); the moves allowed between them are in
 * src/features/properties/properties.lifecycle.ts. Only ACTIVE ones published on the portal are shown.
 */
export const PROPERTY_STATUSES = ['DRAFT', 'ACTIVE', 'RESERVED', 'SOLD', 'RENTED', 'INACTIVE'] as const;
/** Amenity names: `amenities` holds these, and the portal filters on each with `has<Name>=1`. */
export const AMENITIES = [
  'petFriendly',
  'pool',
  'parking',
  'garden',
  'elevator',
  'furnished',
  'airConditioning',
  'terrace',
  'balcony',
  'storage',
  'security',
  'gym',
  'heating',
  'fireplace',
  'seaView',
  'accessible',
] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];
export type PropertyType = (typeof PROPERTY_TYPES)[number];
export type PropertyStatus = (typeof PROPERTY_STATUSES)[number];
export type Amenity = (typeof AMENITIES)[number];

/**
 * What the portal, feeds and MCP show of a listing's address (issue 25): EXACT, STREET (the street
 * without the house number, coordinates to 3 decimals) or HIDDEN (no address or zip code, coordinates to
 * 2 decimals: SPEC's approximate location).
 */
export const ADDRESS_VISIBILITIES = ['EXACT', 'STREET', 'HIDDEN'] as const;
export type AddressVisibility = (typeof ADDRESS_VISIBILITIES)[number];
