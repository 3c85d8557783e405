// A parsed `$filter` as SQL over the properties table, every value a bind parameter. Each RESO field is
// the SQL expression of the column (or computation) its value comes from in reso.mapping.ts; the
// fields whose value is a mapping of ours (StandardStatus, PropertyType, PropertySubType,
// LeaseConsideredYN) are compared by enumerating the finite domain they map from, so the SQL matches
// exactly the records that show the value. OData's null semantics are kept: a comparison with a
// missing value is false (so `not (…)` of it is true), `eq null` matches missing values.
import { and, not, or, sql, type SQL } from 'drizzle-orm';
import { properties } from '../../db/schema.ts';
import { PROPERTY_STATUSES } from '../../shared/property-vocabulary.ts';
import { PROPERTY_FIELD_TYPES, TYPE_PAIRS, type FilterableField } from './reso.fields.ts';
import type { Comparison, Filter, Literal } from './reso.filter.ts';
import {
  AMENITY_FLAGS,
  FURNISHED_AMENITY,
  amenitiesGiving,
  multiLookupValues,
  type MultiLookupField,
} from './reso.features.ts';
import { STANDARD_STATUS_OF, propertyTypeOf } from './reso.mapping.ts';
import { isDeleteRecordRow } from './reso.deletions.ts';

const p = properties;

/** The SQL of each directly stored (or computed) field, and the SQL type its literals are cast to. */
const COLUMNS: Partial<Record<FilterableField, { expr: SQL; cast: string }>> = {
  ListingKey: { expr: sql`${p.id}`, cast: 'text' },
  ListingId: { expr: sql`${p.code}`, cast: 'text' },
  MlsStatus: { expr: sql`${p.status}`, cast: 'text' },
  // The float8 copies: comparisons on them are leakproof (usable under RLS) and exact at these magnitudes.
  ListPrice: { expr: sql`${p.priceValue}`, cast: 'double precision' },
  PreviousListPrice: { expr: sql`${p.previousPrice}`, cast: 'numeric' },
  ListPriceCurrency: { expr: sql`${p.currency}`, cast: 'text' },
  BedroomsTotal: { expr: sql`${p.bedrooms}`, cast: 'numeric' },
  BathroomsTotalInteger: { expr: sql`${p.bathrooms}`, cast: 'numeric' },
  LivingArea: { expr: sql`${p.areaValue}`, cast: 'double precision' },
  LivingAreaUnits: {
    expr: sql`(CASE WHEN ${p.area} IS NULL THEN NULL ELSE 'Square Meters' END)`,
    cast: 'text',
  },
  UnparsedAddress: { expr: sql`${p.address}`, cast: 'text' },
  PostalCode: { expr: sql`${p.zipCode}`, cast: 'text' },
  City: { expr: sql`${p.city}`, cast: 'text' },
  SubdivisionName: { expr: sql`${p.neighborhood}`, cast: 'text' },
  Latitude: { expr: sql`${p.latitude}`, cast: 'double precision' },
  Longitude: { expr: sql`${p.longitude}`, cast: 'double precision' },
  PublicRemarks: { expr: sql`nullif(${p.description}, '')`, cast: 'text' },
  PrivateRemarks: { expr: sql`${p.internalNotes}`, cast: 'text' },
  ListAgentKey: { expr: sql`${p.agentId}`, cast: 'text' },
  InternetEntireListingDisplayYN: { expr: sql`${p.publishedOnPortal}`, cast: 'boolean' },
  InternetAddressDisplayYN: { expr: sql`(${p.addressVisibility} = 'EXACT')`, cast: 'boolean' },
  OnMarketDate: { expr: sql`${p.onMarketDate}`, cast: 'date' },
  Furnished: {
    expr: sql`(CASE WHEN ${FURNISHED_AMENITY} = ANY(${p.amenities}) THEN 'Furnished' END)`,
    cast: 'text',
  },
  ...flags(),
  PhotosCount: { expr: sql`jsonb_array_length(${p.photos})`, cast: 'numeric' },
  OriginalEntryTimestamp: { expr: sql`${p.createdAt}`, cast: 'timestamptz' },
  ModificationTimestamp: { expr: sql`${p.updatedAt}`, cast: 'timestamptz' },
};

/** CoolingYN and its kin: true when the listing has the amenity, else null (reso.features.ts). */
function flags(): Partial<Record<FilterableField, { expr: SQL; cast: string }>> {
  return Object.fromEntries(
    Object.entries(AMENITY_FLAGS).map(([field, amenity]) => [
      field,
      { expr: sql`(CASE WHEN ${amenity} = ANY(${p.amenities}) THEN true END)`, cast: 'boolean' },
    ]),
  );
}

/** Listings with any of these amenities. */
function withAnyOf(amenities: readonly string[]): SQL {
  if (amenities.length === 0) return sql`false`;
  return sql`${p.amenities} && ARRAY[${sql.join(
    amenities.map((amenity) => sql`${amenity}`),
    sql`, `,
  )}]::text[]`;
}

/** A multi-valued lookup's `any` and `all` over the amenities its values come from. */
function collection(field: MultiLookupField, op: 'any' | 'all', values: string[] | null): SQL {
  const every = amenitiesGiving(field, multiLookupValues(field));
  if (op === 'any') return withAnyOf(values === null ? every : amenitiesGiving(field, values));
  // all: no value outside `values` (so true for a listing with none); never for a Delete record, whose
  // collections are absent (NULL amenities), not empty.
  const giving = amenitiesGiving(field, values ?? []);
  const outside = every.filter((amenity) => !giving.includes(amenity));
  return sql`(${p.amenities} IS NOT NULL AND NOT ${withAnyOf(outside)})`;
}

type Shown = string | boolean | null;

/** The fields that are mappings of ours: their value for each status, or each (type, transaction type). */
const MAPPED: Partial<Record<FilterableField, (value: Literal) => SQL>> = {
  StandardStatus: (value) => statusesWhere((status) => matches(STANDARD_STATUS_OF[status], value)),
  PropertyType: (value) => pairsWhere((pair) => matches(pair.PropertyType, value)),
  PropertySubType: (value) => pairsWhere((pair) => matches(pair.PropertySubType, value)),
  LeaseConsideredYN: (value) => pairsWhere((pair) => matches(pair.LeaseConsideredYN, value)),
};

const shownValue = (literal: Literal): Shown =>
  literal.type === 'null'
    ? null
    : literal.type === 'string' || literal.type === 'boolean'
      ? literal.value
      : null;

function matches(shown: Shown, literal: Literal): boolean {
  return shown === shownValue(literal);
}

function statusesWhere(test: (status: (typeof PROPERTY_STATUSES)[number]) => boolean): SQL {
  const statuses = PROPERTY_STATUSES.filter(test);
  if (statuses.length === 0) return sql`false`;
  return sql`${p.status} IN (${sql.join(
    statuses.map((s) => sql`${s}`),
    sql`, `,
  )})`;
}

function pairsWhere(test: (shown: ReturnType<typeof propertyTypeOf>) => boolean): SQL {
  const pairs = TYPE_PAIRS.filter((pair) => test(propertyTypeOf(pair.type, pair.transactionType)));
  if (pairs.length === 0) return sql`false`;
  return sql`(${p.type}, ${p.transactionType}) IN (${sql.join(
    pairs.map((pair) => sql`(${pair.type}, ${pair.transactionType})`),
    sql`, `,
  )})`;
}

/**
 * A mapped field's comparison, definite on a Delete record too (reso.deletions.ts), which has none of our
 * statuses, types or transaction types: there StandardStatus is `Delete` and the other mapped fields null.
 */
function orOnDeleteRecords(field: FilterableField, onListings: SQL, value: Literal): SQL {
  const shown = field === 'StandardStatus' ? 'Delete' : null;
  return matches(shown, value)
    ? sql`(${isDeleteRecordRow()} OR ${onListings})`
    : sql`(NOT ${isDeleteRecordRow()} AND ${onListings})`;
}

const OPERATORS: Record<Comparison, string> = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' };

function valueOf(literal: Literal, cast: string): SQL {
  switch (literal.type) {
    case 'now':
      return sql`now()`;
    case 'date':
      return sql`${literal.value}::date`;
    case 'null':
      return sql`NULL`;
    default:
      return sql`${typeof literal.value === 'boolean' ? literal.value : String(literal.value)}::${sql.raw(cast)}`;
  }
}

/** A comparison that is false, never NULL, when the field has no value (OData's null semantics). */
function definite(condition: SQL, nullable: boolean): SQL {
  return nullable ? sql`coalesce(${condition}, false)` : condition;
}

function compare(field: FilterableField, op: Comparison, value: Literal, onDate: boolean): SQL {
  const mapped = MAPPED[field];
  if (mapped) {
    const equal = orOnDeleteRecords(field, mapped(value), value);
    return op === 'eq' ? equal : not(equal);
  }
  const column = COLUMNS[field] as { expr: SQL; cast: string };
  const nullable = PROPERTY_FIELD_TYPES[field].nullable;
  if (value.type === 'null') {
    if (op === 'eq') return sql`${column.expr} IS NULL`;
    if (op === 'ne') return sql`${column.expr} IS NOT NULL`;
    return sql`false`;
  }
  const left = onDate ? sql`((${column.expr}) AT TIME ZONE 'UTC')::date` : column.expr;
  const right = valueOf(value, column.cast);
  // `ne` is true for a missing value (null ne 5), every other comparison false.
  if (op === 'ne' && nullable) return sql`${left} IS DISTINCT FROM ${right}`;
  return definite(sql`${left} ${sql.raw(OPERATORS[op])} ${right}`, nullable);
}

/** `%` and `_` taken literally in a LIKE pattern. */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A parsed $filter as a parameterized SQL condition. */
export function conditionOf(filter: Filter): SQL {
  switch (filter.kind) {
    case 'and':
      return and(conditionOf(filter.left), conditionOf(filter.right)) as SQL;
    case 'or':
      return or(conditionOf(filter.left), conditionOf(filter.right)) as SQL;
    case 'not':
      return not(conditionOf(filter.operand));
    case 'compare':
      return compare(filter.field, filter.op, filter.value, filter.onDate === true);
    case 'in': {
      const each = filter.values.map((value) => compare(filter.field, 'eq', value, false));
      return each.length === 1 ? (each[0] as SQL) : (or(...each) as SQL);
    }
    case 'collection':
      return collection(filter.field as MultiLookupField, filter.op, filter.values);
    case 'text': {
      const column = (COLUMNS[filter.field] as { expr: SQL }).expr;
      const pattern = likeEscaped(filter.value);
      // OData's string functions are case-sensitive: LIKE, not ILIKE.
      const like =
        filter.fn === 'contains'
          ? `%${pattern}%`
          : filter.fn === 'startswith'
            ? `${pattern}%`
            : `%${pattern}`;
      return definite(sql`${column} LIKE ${like}`, PROPERTY_FIELD_TYPES[filter.field].nullable);
    }
  }
}
