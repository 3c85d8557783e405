// The transaction handle and its options: what the drivers (driver.ts) and a request's unit of work
// (unit-of-work.ts) share.
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema.ts';

export type Schema = typeof schema;
/** A Drizzle handle inside one transaction; stores take it as their first argument. */
export type Tx = PgDatabase<PgQueryResultHKT, Schema>;

export type DbRole = 'agency_app' | 'agency_system';

export interface TransactionOptions {
  role: DbRole;
  /** Sets `app.organization_id` for the transaction (RLS). Omit only to prove RLS hides everything. */
  organizationId?: string;
  /** READ ONLY: may be served by a read replica (DATABASE_READ_URL) once it has the tenant's writes. */
  readOnly?: boolean;
}
