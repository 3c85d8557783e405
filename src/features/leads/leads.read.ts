// Reading what the portal's forms left, through v1: leads (GET /v1/leads, /v1/leads/{id}) and visit requests.
import { readAs } from '../../platform/tenancy/caller-tx.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import type { Database } from '../../db/database.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { parseDateOrDateTime } from '../../platform/http/dates.ts';
import { countedPageMeta, pageRequest, type PageMeta } from '../../platform/http/pagination.ts';
import { isId } from '../../platform/ids/ids.ts';
import type { Lead, ListLeadsQuery, ListVisitRequestsQuery, VisitRequest } from './leads.schema.ts';
import * as store from './leads.store.ts';

const contactOf = (contact: store.LeadWithNames['contact']) => ({
  id: contact.id,
  fullName: [contact.firstName, contact.lastName].filter(Boolean).join(' '),
});

function toLead({ lead, contact, property }: store.LeadWithNames): Lead {
  const utm = (name: 'source' | 'medium' | 'campaign' | 'content') => lead.utm[name] ?? null;
  return {
    id: lead.id,
    contact: contactOf(contact),
    property,
    message: lead.message,
    interestedIn: lead.interestedIn,
    utmSource: utm('source'),
    utmMedium: utm('medium'),
    utmCampaign: utm('campaign'),
    utmContent: utm('content'),
    referrer: lead.referrer,
    outcome: lead.outcome,
    matchedOn: lead.matchedOn,
    createdAt: lead.createdAt.toISOString(),
  };
}

/** The list query's filters, dates parsed; a 400 naming `createdBefore` when the range is empty. */
function listFilter(query: ListLeadsQuery): store.LeadListFilter {
  const filter: store.LeadListFilter = {
    propertyId: query.propertyId,
    utmSource: query.utmSource,
    outcome: query.outcome,
  };
  if (query.createdAfter !== undefined) {
    filter.createdAfter = parseDateOrDateTime(query.createdAfter, 'query.createdAfter');
  }
  if (query.createdBefore !== undefined) {
    filter.createdBefore = parseDateOrDateTime(query.createdBefore, 'query.createdBefore');
  }
  if (filter.createdAfter && filter.createdBefore && filter.createdAfter >= filter.createdBefore) {
    throw Errors.invalidField('query.createdBefore', 'must be later than createdAfter');
  }
  return filter;
}

/** GET /v1/leads: the organization's leads matching the filters, newest first, one page. */
export async function searchLeads(
  db: Database,
  caller: Caller,
  query: ListLeadsQuery,
): Promise<{ data: Lead[]; meta: PageMeta }> {
  const organizationId = caller.organization.id;
  const filter = listFilter(query);
  const page = pageRequest(query);
  const { items, total } = await readAs(db, caller, (tx) =>
    store.listLeads(tx, organizationId, filter, page),
  );
  return { data: items.map(toLead), meta: countedPageMeta(total, page, items.length) };
}

/** GET /v1/leads/{id}: 404 when the id is malformed, unknown or another organization's (one answer). */
export async function findLead(db: Database, caller: Caller, id: string): Promise<Lead> {
  const organizationId = caller.organization.id;
  const row = isId(id, 'lead')
    ? await readAs(db, caller, (tx) => store.findLeadById(tx, organizationId, id))
    : null;
  if (!row) throw Errors.notFound('Lead', id);
  return toLead(row);
}

export function toVisitRequest({
  visitRequest: row,
  contact,
  property,
}: store.VisitRequestWithNames): VisitRequest {
  return {
    id: row.id,
    status: row.status,
    contact: contactOf(contact),
    property,
    preferredDate: row.preferredDate,
    preferredTime: row.preferredTime,
    message: row.message,
    appointmentId: row.appointmentId,
    declineReason: row.declineReason,
    decidedAt: row.decidedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** GET /v1/visit-requests/{id}: 404 when the id is malformed, unknown or another organization's (one answer). */
export async function findVisitRequest(db: Database, caller: Caller, id: string): Promise<VisitRequest> {
  const organizationId = caller.organization.id;
  const row = isId(id, 'vr')
    ? await readAs(db, caller, (tx) => store.findVisitRequestById(tx, organizationId, id))
    : null;
  if (!row) throw Errors.notFound('Visit request', id);
  return toVisitRequest(row);
}

/** GET /v1/visit-requests: the organization's visit requests (of one status, if asked), newest first. */
export async function searchVisitRequests(
  db: Database,
  caller: Caller,
  query: ListVisitRequestsQuery,
): Promise<{ data: VisitRequest[]; meta: PageMeta }> {
  const organizationId = caller.organization.id;
  const page = pageRequest(query);
  const { items, total } = await readAs(db, caller, (tx) =>
    store.listVisitRequests(tx, organizationId, { status: query.status }, page),
  );
  return { data: items.map(toVisitRequest), meta: countedPageMeta(total, page, items.length) };
}
