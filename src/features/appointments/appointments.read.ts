// Reading appointments: the back office's and v1 lists with their filters, one appointment, agent calendars.
import type { Database, Tx } from '../../db/database.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { parseDateOrDateTime } from '../../platform/http/dates.ts';
import { Errors } from '../../platform/errors/errors.ts';
import {
  listPage,
  listRequest,
  pageMeta,
  type ListMeta,
  type PageMeta,
  type PageRequest,
} from '../../platform/http/pagination.ts';
import { readAs } from '../../platform/tenancy/caller-tx.ts';
import {
  type Appointment,
  type AppointmentStatus,
  type ListAppointmentsQuery,
} from './appointments.schema.ts';
import * as store from './appointments.store.ts';
import { loadAppointment, toAppointment } from './appointments.service.ts';

/** The filters and sort of a list query, parsed (dates) and checked (range in order). */
function listFilter(query: Omit<ListAppointmentsQuery, 'page' | 'pageSize'>) {
  const filter: store.AppointmentFilter = {
    agentId: query.agentId,
    contactId: query.contactId,
    status: query.status,
    type: query.type,
  };
  if (query.from !== undefined) filter.from = parseDateOrDateTime(query.from, 'query.from');
  if (query.to !== undefined) filter.to = parseDateOrDateTime(query.to, 'query.to');
  if (filter.from && filter.to && filter.to.getTime() <= filter.from.getTime()) {
    throw Errors.invalidField('query.to', 'must be later than from');
  }
  const sort: store.AppointmentSort = { by: query.sortBy ?? 'startsAt', order: query.sortOrder ?? 'asc' };
  return { filter, sort };
}

async function pageOf(
  tx: Tx,
  organizationId: string,
  filter: store.AppointmentFilter,
  sort: store.AppointmentSort,
  page: PageRequest,
): Promise<{ data: Appointment[]; meta: PageMeta }> {
  const { items, total } = await store.listAppointments(tx, organizationId, filter, sort, page);
  return { data: items.map(toAppointment), meta: pageMeta(total, page) };
}

/** A list query's page, or its cursor page (`updatedAfter`, `cursor`). */
async function listOf(
  tx: Tx,
  organizationId: string,
  query: ListAppointmentsQuery,
): Promise<{ data: Appointment[]; meta: ListMeta }> {
  const { filter, sort } = listFilter(query);
  const request = listRequest(query, { list: 'appointments', organizationId });
  return listPage(
    request,
    {
      cursor: (keyset) => store.listAppointmentsByUpdatedAt(tx, organizationId, filter, keyset),
      page: (page) => store.listAppointments(tx, organizationId, filter, sort, page),
      total: 'exact',
    },
    toAppointment,
  );
}

/** The caller's organization's appointments, soonest first by default, or a cursor page. */
export async function searchAppointments(db: Database, caller: Caller, query: ListAppointmentsQuery) {
  return readAs(db, caller, (tx) => listOf(tx, caller.organization.id, query));
}

/** One appointment: 404 when malformed, unknown or another organization's. */
export async function findAppointment(db: Database, caller: Caller, id: string): Promise<Appointment> {
  return readAs(db, caller, async (tx) =>
    toAppointment(await loadAppointment(tx, caller.organization.id, id)),
  );
}

/** What the MCP tool `list_appointments` filters on. */
export interface AppointmentRangeFilter {
  /** startsAt at or after; a date (YYYY-MM-DD) means its midnight UTC. */
  from?: Date | string;
  /** startsAt strictly before. */
  to?: Date | string;
  agentId?: string;
  status?: AppointmentStatus;
}

/**
 * Appointments in a date range (on startsAt), optionally of one agent and status, soonest first;
 * HTTP-free, for the MCP tools. String bounds are parsed like the API's (400 naming `from`/`to`).
 */
export async function listAppointments(
  db: Database,
  caller: Caller,
  filter: AppointmentRangeFilter,
  page: PageRequest,
): Promise<{ data: Appointment[]; meta: PageMeta }> {
  const bound = (value: Date | string | undefined, field: string) =>
    typeof value === 'string' ? parseDateOrDateTime(value, field) : value;
  const parsed: store.AppointmentFilter = {
    from: bound(filter.from, 'from'),
    to: bound(filter.to, 'to'),
    agentId: filter.agentId,
    status: filter.status,
  };
  return readAs(db, caller, (tx) =>
    pageOf(tx, caller.organization.id, parsed, { by: 'startsAt', order: 'asc' }, page),
  );
}
