// Our listing in RESO Data Dictionary 2.0 terms (docs/reso.md has the same tables for readers): the
// field names, the StandardStatus and PropertyType lookups, and the record one row becomes.
import { createHash } from 'node:crypto';
import { featuresOf } from './reso.features.ts';
import type { PropertyPhoto } from '../../db/schema.ts';
import type {
  AddressVisibility,
  PropertyStatus,
  PropertyType,
  TransactionType,
} from '../../shared/property-vocabulary.ts';

/** DD 2.0's StandardStatus lookup values (its StandardName: the string DD 2.0 transmits). */
export const STANDARD_STATUSES = [
  'Active',
  'Active Under Contract',
  'Canceled',
  'Closed',
  'Coming Soon',
  'Delete',
  'Expired',
  'Hold',
  'Incomplete',
  'Pending',
  'Withdrawn',
] as const;
export type StandardStatus = (typeof STANDARD_STATUSES)[number];

/**
 * Our status -> StandardStatus. DRAFT is not ready for the market (Incomplete, not Coming Soon, which
 * RESO keeps for a signed listing about to go Active); RESERVED has an accepted offer and is off the
 * portal (Pending); SOLD and RENTED are both Closed ("the lease agreement has been executed"); INACTIVE
 * is withdrawn from the market. The raw status stays in MlsStatus.
 */
export const STANDARD_STATUS_OF: Readonly<Record<PropertyStatus, StandardStatus>> = {
  DRAFT: 'Incomplete',
  ACTIVE: 'Active',
  RESERVED: 'Pending',
  SOLD: 'Closed',
  RENTED: 'Closed',
  INACTIVE: 'Withdrawn',
};

/** The statuses a StandardStatus value stands for (none for the values we never give). */
export function statusesOf(standard: StandardStatus): PropertyStatus[] {
  return (Object.keys(STANDARD_STATUS_OF) as PropertyStatus[]).filter(
    (status) => STANDARD_STATUS_OF[status] === standard,
  );
}

type Use = 'residential' | 'commercial' | 'land';

/**
 * Our type -> RESO's use and PropertySubType (sale, lease). A Spanish "piso" for sale is owned unit by
 * unit: RESO's Condominium; RESO keeps Apartment for units let in a wholly owned building. Our DUPLEX
 * is a two-storey flat (RESO's Duplex is a two-unit building): a flat too. ROOM has no subtype.
 */
const TYPES: Readonly<Record<PropertyType, { use: Use; sale: string | null; lease: string | null }>> = {
  APARTMENT: { use: 'residential', sale: 'Condominium', lease: 'Apartment' },
  STUDIO: { use: 'residential', sale: 'Condominium', lease: 'Apartment' },
  PENTHOUSE: { use: 'residential', sale: 'Condominium', lease: 'Apartment' },
  DUPLEX: { use: 'residential', sale: 'Condominium', lease: 'Apartment' },
  HOUSE: { use: 'residential', sale: 'Single Family Residence', lease: 'Single Family Residence' },
  VILLA: { use: 'residential', sale: 'Single Family Residence', lease: 'Single Family Residence' },
  TOWNHOUSE: { use: 'residential', sale: 'Townhouse', lease: 'Townhouse' },
  ROOM: { use: 'residential', sale: null, lease: null },
  PARKING: { use: 'residential', sale: 'Deeded Parking', lease: 'Deeded Parking' },
  LAND: { use: 'land', sale: 'Unimproved Land', lease: 'Unimproved Land' },
  COMMERCIAL: { use: 'commercial', sale: 'Retail', lease: 'Retail' },
  OFFICE: { use: 'commercial', sale: 'Office', lease: 'Office' },
  WAREHOUSE: { use: 'commercial', sale: 'Warehouse', lease: 'Warehouse' },
};

/** The PropertyType lookup values we give. */
export const RESO_PROPERTY_TYPES = [
  'Residential',
  'Residential Lease',
  'Commercial Sale',
  'Commercial Lease',
  'Land',
] as const;
type ResoPropertyType = (typeof RESO_PROPERTY_TYPES)[number];

const PROPERTY_TYPE_OF: Readonly<Record<Use, { sale: ResoPropertyType; lease: ResoPropertyType }>> = {
  residential: { sale: 'Residential', lease: 'Residential Lease' },
  commercial: { sale: 'Commercial Sale', lease: 'Commercial Lease' },
  // DD 2.0 has no land lease type: land is Land either way.
  land: { sale: 'Land', lease: 'Land' },
};

/**
 * PropertyType, PropertySubType and LeaseConsideredYN of a type and transaction type. RESO's
 * PropertyType is single: SALE_OR_RENT is listed as the sale with LeaseConsideredYN true.
 */
export function propertyTypeOf(type: PropertyType, transactionType: TransactionType) {
  const known = TYPES[type];
  const lease = transactionType === 'RENT';
  return {
    PropertyType: PROPERTY_TYPE_OF[known.use][lease ? 'lease' : 'sale'],
    PropertySubType: lease ? known.lease : known.sale,
    LeaseConsideredYN: lease ? null : transactionType === 'SALE_OR_RENT',
  };
}

/** Every field of our Property resource, in the order a record lists them (`$select` takes these). */
export const RESO_FIELDS = [
  'ListingKey',
  'ListingId',
  'StandardStatus',
  'MlsStatus',
  'PropertyType',
  'PropertySubType',
  'LeaseConsideredYN',
  'ListPrice',
  'PreviousListPrice',
  'ListPriceCurrency',
  'BedroomsTotal',
  'BathroomsTotalInteger',
  'LivingArea',
  'LivingAreaUnits',
  'UnparsedAddress',
  'PostalCode',
  'City',
  'SubdivisionName',
  'Latitude',
  'Longitude',
  'PublicRemarks',
  'PrivateRemarks',
  'ListAgentKey',
  'InternetEntireListingDisplayYN',
  'InternetAddressDisplayYN',
  'OnMarketDate',
  'View',
  'ExteriorFeatures',
  'PatioAndPorchFeatures',
  'PetsAllowed',
  'Furnished',
  'CoolingYN',
  'HeatingYN',
  'FireplaceYN',
  'PhotosCount',
  'Media',
  'OriginalEntryTimestamp',
  'ModificationTimestamp',
] as const;
export type ResoField = (typeof RESO_FIELDS)[number];

/** One element of Media: a photo of the listing (DD 2.0's Media resource names). */
export interface ResoMedia {
  MediaKey: string;
  ResourceName: 'Property';
  ResourceRecordKey: string;
  MediaCategory: 'Photo';
  MediaURL: string;
  Order: number;
  ShortDescription: string | null;
  LongDescription: string | null;
  ImageWidth: number | null;
  ImageHeight: number | null;
  ModificationTimestamp: string;
}

/** What the store reads of a listing for RESO: the columns, and both timestamps as UTC µs text. */
export interface ResoRow {
  id: string;
  code: string;
  status: PropertyStatus;
  transactionType: TransactionType;
  type: PropertyType;
  price: number;
  previousPrice: number | null;
  currency: string;
  bedrooms: number;
  bathrooms: number;
  area: number | null;
  address: string | null;
  zipCode: string | null;
  city: string;
  neighborhood: string | null;
  latitude: number | null;
  longitude: number | null;
  description: string;
  internalNotes: string | null;
  agentId: string | null;
  publishedOnPortal: boolean;
  addressVisibility: AddressVisibility;
  /** The day it first went ACTIVE (YYYY-MM-DD), or null. */
  onMarketDate: string | null;
  amenities: string[];
  photos: PropertyPhoto[];
  createdAt: string;
  updatedAt: string;
}

/**
 * The MediaKey of a photo: an uploaded photo's own id; a photo given by URL has none, so its key is
 * derived from the listing's id, the URL and which occurrence of that URL it is (a URL listed twice gets
 * two keys): stable while the photo stays, whatever its place among the photos, and never another
 * listing's (`med_` and 24 hex digits of a SHA-256).
 */
export function mediaKeyOf(listingId: string, url: string, occurrence: number): string {
  const digest = createHash('sha256').update(`${listingId}\n${url}\n${occurrence}`).digest('hex');
  return `med_${digest.slice(0, 24)}`;
}

/**
 * The photos as Media records. A photo has no timestamp of its own: its ModificationTimestamp is the
 * listing's, which changes whenever the photos do.
 */
export function mediaOf(row: Pick<ResoRow, 'id' | 'photos' | 'updatedAt'>): ResoMedia[] {
  const seen = new Map<string, number>();
  return row.photos.map((photo, index) => {
    const occurrence = (seen.get(photo.url) ?? 0) + 1;
    seen.set(photo.url, occurrence);
    return {
      MediaKey: typeof photo.id === 'string' ? photo.id : mediaKeyOf(row.id, photo.url, occurrence),
      ResourceName: 'Property' as const,
      ResourceRecordKey: row.id,
      MediaCategory: 'Photo' as const,
      MediaURL: photo.url,
      Order: index + 1,
      ShortDescription: photo.caption ?? null,
      LongDescription: typeof photo.altText === 'string' ? photo.altText : null,
      ImageWidth: typeof photo.width === 'number' ? photo.width : null,
      ImageHeight: typeof photo.height === 'number' ? photo.height : null,
      ModificationTimestamp: row.updatedAt,
    };
  });
}

/** The full RESO record of a listing (the agency's view: exact address and coordinates, private remarks). */
export function toResoProperty(row: ResoRow) {
  return {
    ListingKey: row.id,
    ListingId: row.code,
    StandardStatus: STANDARD_STATUS_OF[row.status],
    MlsStatus: row.status,
    ...propertyTypeOf(row.type, row.transactionType),
    ListPrice: row.price,
    PreviousListPrice: row.previousPrice,
    ListPriceCurrency: row.currency,
    BedroomsTotal: row.bedrooms,
    BathroomsTotalInteger: row.bathrooms,
    LivingArea: row.area,
    LivingAreaUnits: row.area === null ? null : ('Square Meters' as const),
    UnparsedAddress: row.address,
    PostalCode: row.zipCode,
    City: row.city,
    SubdivisionName: row.neighborhood,
    Latitude: row.latitude,
    Longitude: row.longitude,
    PublicRemarks: row.description === '' ? null : row.description,
    PrivateRemarks: row.internalNotes,
    ListAgentKey: row.agentId,
    InternetEntireListingDisplayYN: row.publishedOnPortal,
    // The portal shows the whole address only with EXACT (STREET shows the street, HIDDEN nothing).
    InternetAddressDisplayYN: row.addressVisibility === 'EXACT',
    OnMarketDate: row.onMarketDate,
    ...featuresOf(row.amenities),
    PhotosCount: row.photos.length,
    Media: mediaOf(row),
    OriginalEntryTimestamp: row.createdAt,
    ModificationTimestamp: row.updatedAt,
  } satisfies Record<ResoField, unknown>;
}
export type ResoRecord = ReturnType<typeof toResoProperty>;

/** The record (a listing's or a Delete record) cut to `$select` (every field when there is none). */
export function selectFields<R extends Record<ResoField, unknown>>(
  record: R,
  select: readonly ResoField[] | null,
): Partial<R> {
  if (select === null) return record;
  const picked: Partial<Record<ResoField, unknown>> = {};
  for (const field of select) picked[field] = record[field];
  return picked as Partial<R>;
}
