// Deleted listings in the RESO walk (decision 0263): a listing deleted by any path leaves a row in
// reso_deletions (migration 0033's trigger), which GET /v1/reso/Property shows as a record with
// StandardStatus `Delete`, the way RESO's Data Dictionary tells a replica to drop its copy. The rows are
// read under the properties table's name and columns, so the walk's conditions (organization, keyset,
// every `$filter` comparison) are the same SQL on listings and on Delete records.
import { getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { properties, resoDeletions } from '../../db/schema.ts';
import type { DELETE_RECORD_FIELDS } from './reso.fields.ts';
import { RESO_FIELDS, toResoProperty, type ResoField, type ResoRow } from './reso.mapping.ts';

/** The properties columns a deletion keeps; every other column is null on a Delete record. */
const KEPT: Readonly<Record<string, SQL>> = {
  [properties.organizationId.name]: sql`${resoDeletions.organizationId}`,
  [properties.id.name]: sql`${resoDeletions.propertyId}`,
  [properties.code.name]: sql`${resoDeletions.code}`,
  [properties.updatedAt.name]: sql`${resoDeletions.deletedAt}`,
};

/**
 * The organization's deletions as a subquery named `properties` with every column of it: the kept
 * ones from the deletion, the others a NULL of the column's type (status too, which a listing never has
 * null: that is how the SQL tells a Delete record). A column added to properties is null here without
 * a change. PostgreSQL pulls the subquery up, so the walk reads the (organization_id, deleted_at,
 * property_id) index as it reads properties' (organization_id, updated_at, id).
 */
export function deletedProperties() {
  const columns = Object.fromEntries(
    Object.values(getTableColumns(properties)).map((column) => [
      column.name,
      (KEPT[column.name] ?? sql.raw(`NULL::${column.getSQLType()}`)).as(column.name),
    ]),
  );
  return new QueryBuilder().select(columns).from(resoDeletions).as(getTableName(properties));
}

/** True on the row of a Delete record, false on a listing's (under `deletedProperties`' naming). */
export function isDeleteRecordRow(): SQL {
  return sql`${properties.status} IS NULL`;
}

/** What the walk reads of a Delete record: the columns a deletion keeps (every other is null). */
export interface DeletedRow {
  id: string;
  code: string;
  status: null;
  updatedAt: string;
}

/** A row of the walk: a listing, or a deleted listing. */
export type WalkedRow = ResoRow | DeletedRow;

/** Whether a row of the walk is a deleted listing's. */
export function isDeleted(row: WalkedRow): row is DeletedRow {
  return row.status === null;
}

/** The fields of a Delete record: null but for the ones it keeps, and Media (a collection) empty. */
type ResoDeleteRecord = Record<Exclude<ResoField, (typeof DELETE_RECORD_FIELDS)[number] | 'Media'>, null> & {
  ListingKey: string;
  ListingId: string;
  StandardStatus: 'Delete';
  Media: [];
  ModificationTimestamp: string;
};

/**
 * A deleted listing's record: its ListingKey and ListingId, StandardStatus `Delete`, the instant it was
 * deleted as ModificationTimestamp, no Media, and null in every other field of RESO_FIELDS.
 */
export function toResoDeleteRecord(row: DeletedRow): ResoDeleteRecord {
  const nulls = Object.fromEntries(RESO_FIELDS.map((field) => [field, null]));
  return {
    ...(nulls as Record<ResoField, null>),
    ListingKey: row.id,
    ListingId: row.code,
    StandardStatus: 'Delete',
    Media: [],
    ModificationTimestamp: row.updatedAt,
  };
}

/** The record of a row of the walk: a listing's, or a Delete record. */
export function resoRecordOf(row: WalkedRow) {
  return isDeleted(row) ? toResoDeleteRecord(row) : toResoProperty(row);
}
