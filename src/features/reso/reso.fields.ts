// The type of every field of our Property and Media records, from which both the CSDL document
// ($metadata) and the `$filter` grammar are derived: what a field is in the metadata is what it can be
// compared with, so the two never disagree. The values themselves come from reso.mapping.ts.
import { PROPERTY_STATUSES, PROPERTY_TYPES, TRANSACTION_TYPES } from '../../shared/property-vocabulary.ts';
import { FURNISHED_VALUE, MULTI_LOOKUP_FIELDS, multiLookupValues } from './reso.features.ts';
import { RESO_FIELDS, STANDARD_STATUS_OF, propertyTypeOf, type ResoField } from './reso.mapping.ts';

/** How a field is compared in `$filter` (and typed in $metadata). */
export type FieldKind =
  'string' | 'lookup' | 'multi' | 'integer' | 'decimal' | 'boolean' | 'date' | 'timestamp';

export interface FieldType {
  kind: FieldKind;
  /** The CSDL type (`Edm.String`, `Edm.Int32`…). */
  edm: string;
  nullable: boolean;
  /** CSDL facets: Precision and Scale of a decimal, Precision (fraction digits) of a timestamp, MaxLength. */
  facets?: Record<string, string>;
  /**
   * A lookup (single, or multi: a collection of values): the RESO LookupName its values belong to (DD
   * 1.7+ string lookups, the Lookup resource).
   */
  lookupName?: string;
}

const text = (nullable = false): FieldType => ({ kind: 'string', edm: 'Edm.String', nullable });
const lookup = (lookupName: string, nullable = false): FieldType => ({
  kind: 'lookup',
  edm: 'Edm.String',
  nullable,
  lookupName,
});
/** A multi-valued lookup: a collection of lookup values, never null (empty when there is none). */
const lookups = (lookupName: string): FieldType => ({
  kind: 'multi',
  edm: 'Collection(Edm.String)',
  nullable: false,
  lookupName,
});
const int = (): FieldType => ({ kind: 'integer', edm: 'Edm.Int32', nullable: false });
const money = (nullable: boolean): FieldType => ({
  kind: 'decimal',
  edm: 'Edm.Decimal',
  nullable,
  facets: { Precision: '14', Scale: '2' },
});
const double = (): FieldType => ({ kind: 'decimal', edm: 'Edm.Double', nullable: true });
const yn = (nullable = false): FieldType => ({ kind: 'boolean', edm: 'Edm.Boolean', nullable });
const day = (): FieldType => ({ kind: 'date', edm: 'Edm.Date', nullable: true });
// Timestamps are kept and shown to the microsecond.
const instant = (): FieldType => ({
  kind: 'timestamp',
  edm: 'Edm.DateTimeOffset',
  nullable: false,
  facets: { Precision: '6' },
});

/**
 * The fields a Delete record (a deleted listing, reso.deletions.ts) has a value in. Every other field is
 * null there, so it is nullable (in $metadata and in `$filter`'s null semantics) even when every listing
 * has it.
 */
export const DELETE_RECORD_FIELDS = [
  'ListingKey',
  'ListingId',
  'StandardStatus',
  'ModificationTimestamp',
] as const;

function nullableInDeleteRecords<T extends Readonly<Record<string, FieldType>>>(types: T): T {
  const kept: readonly string[] = DELETE_RECORD_FIELDS;
  return Object.fromEntries(
    Object.entries(types).map(([field, type]) => [
      field,
      kept.includes(field) ? type : { ...type, nullable: true },
    ]),
  ) as T;
}

/** The Property fields but Media (a navigation property), by name, as a listing has them. */
const LISTING_FIELD_TYPES: Readonly<Record<Exclude<ResoField, 'Media'>, FieldType>> = {
  ListingKey: { ...text(), facets: { MaxLength: '64' } },
  ListingId: text(),
  StandardStatus: lookup('StandardStatus'),
  MlsStatus: text(),
  PropertyType: lookup('PropertyType'),
  PropertySubType: lookup('PropertySubType', true),
  LeaseConsideredYN: yn(true),
  ListPrice: money(false),
  PreviousListPrice: money(true),
  ListPriceCurrency: text(),
  BedroomsTotal: int(),
  BathroomsTotalInteger: int(),
  LivingArea: { ...money(true), facets: { Precision: '10', Scale: '2' } },
  LivingAreaUnits: lookup('LivingAreaUnits', true),
  UnparsedAddress: text(true),
  PostalCode: text(true),
  City: text(),
  SubdivisionName: text(true),
  Latitude: double(),
  Longitude: double(),
  PublicRemarks: text(true),
  PrivateRemarks: text(true),
  ListAgentKey: text(true),
  InternetEntireListingDisplayYN: yn(),
  InternetAddressDisplayYN: yn(),
  OnMarketDate: day(),
  View: lookups('View'),
  ExteriorFeatures: lookups('ExteriorFeatures'),
  PatioAndPorchFeatures: lookups('PatioAndPorchFeatures'),
  PetsAllowed: lookups('PetsAllowed'),
  Furnished: lookup('Furnished', true),
  CoolingYN: yn(true),
  HeatingYN: yn(true),
  FireplaceYN: yn(true),
  PhotosCount: int(),
  OriginalEntryTimestamp: instant(),
  ModificationTimestamp: instant(),
};
/** The Property fields but Media, by name: nullable but for DELETE_RECORD_FIELDS. */
export const PROPERTY_FIELD_TYPES = nullableInDeleteRecords(LISTING_FIELD_TYPES);
export type FilterableField = keyof typeof PROPERTY_FIELD_TYPES;

/** The fields `$filter` takes: every field of the record but the Media navigation property. */
export const FILTERABLE_FIELDS = RESO_FIELDS.filter((field): field is FilterableField => field !== 'Media');

/** The Media entity's fields (DD 2.0 Media resource names). */
export const MEDIA_FIELD_TYPES: Readonly<Record<string, FieldType>> = {
  MediaKey: { ...text(), facets: { MaxLength: '64' } },
  ResourceName: lookup('ResourceName'),
  ResourceRecordKey: text(),
  MediaCategory: lookup('MediaCategory'),
  MediaURL: text(),
  Order: int(),
  ShortDescription: text(true),
  LongDescription: text(true),
  ImageWidth: { kind: 'integer', edm: 'Edm.Int32', nullable: true },
  ImageHeight: { kind: 'integer', edm: 'Edm.Int32', nullable: true },
  ModificationTimestamp: instant(),
};

/** The Lookup entity's fields (DD 2.0 Lookup resource names). */
export const LOOKUP_FIELD_TYPES: Readonly<Record<string, FieldType>> = {
  LookupKey: { ...text(), facets: { MaxLength: '64' } },
  LookupName: text(),
  LookupValue: text(),
  StandardLookupValue: text(true),
  LegacyODataValue: text(true),
  ModificationTimestamp: instant(),
};

/** Every (type, transaction type) pair a listing can have: the domain PropertyType and its kin map from. */
export const TYPE_PAIRS = PROPERTY_TYPES.flatMap((type) =>
  TRANSACTION_TYPES.map((transactionType) => ({ type, transactionType })),
);

const unique = <T>(values: T[]): T[] => [...new Set(values)];

/**
 * The values each lookup takes in our records, in the order the Lookup resource lists them: computed
 * from the mapping, so a value the mapping never gives is not advertised.
 */
export const LOOKUP_VALUES: Readonly<Record<string, readonly string[]>> = {
  // Delete: the record of a deleted listing (reso.deletions.ts).
  StandardStatus: unique([...PROPERTY_STATUSES.map((status) => STANDARD_STATUS_OF[status]), 'Delete']),
  PropertyType: unique(TYPE_PAIRS.map((p) => propertyTypeOf(p.type, p.transactionType).PropertyType)),
  PropertySubType: unique(
    TYPE_PAIRS.flatMap((p) => propertyTypeOf(p.type, p.transactionType).PropertySubType ?? []),
  ),
  LivingAreaUnits: ['Square Meters'],
  ...Object.fromEntries(MULTI_LOOKUP_FIELDS.map((field) => [field, multiLookupValues(field)])),
  Furnished: [FURNISHED_VALUE],
  ResourceName: ['Property'],
  MediaCategory: ['Photo'],
};

/** OData's SimpleIdentifier form of a lookup value (`Active Under Contract` -> `ActiveUnderContract`). */
export function identifierOf(value: string): string {
  return value.replace(/[^A-Za-z0-9_]/g, '');
}
