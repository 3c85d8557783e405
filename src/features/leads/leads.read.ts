// Reading leads through v1 (GET /v1/leads, GET /v1/leads/{id}): what the portal's contact form left.
import type { Database } from '../../db/database.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { parseDateOrDateTime } from '../../platform/http/dates.ts';
import { pageMeta, pageRequest, type PageMeta } from '../../platform/http/pagination.ts';
import { isId } from '../../platform/ids/ids.ts';
import type { Lead, ListLeadsQuery } from './leads.schema.ts';
import * as store from './leads.store.ts';

function toLead({ lead, contact, property }: store.LeadWithNames): Lead {
  const utm = (name: 'source' | 'medium' | 'campaign' | 'content') => lead.utm[name] ?? null;
  return {
    id: lead.id,
    contact: { id: contact.id, fullName: [contact.firstName, contact.lastName].filter(Boolean).join(' ') },
    property,
    message: lead.message,
    interestedIn: lead.interestedIn as Lead['interestedIn'],
    utmSource: utm('source'),
    utmMedium: utm('medium'),
    utmCampaign: utm('campaign'),
    utmContent: utm('content'),
    createdAt: lead.createdAt.toISOString(),
  };
}

/** The list query's filters, dates parsed; a 400 naming `createdBefore` when the range is empty. */
function listFilter(query: ListLeadsQuery): store.LeadListFilter {
  const filter: store.LeadListFilter = { propertyId: query.propertyId, utmSource: query.utmSource };
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
  organizationId: string,
  query: ListLeadsQuery,
): Promise<{ data: Lead[]; meta: PageMeta }> {
  const filter = listFilter(query);
  const page = pageRequest(query);
  const { items, total } = await db.tenantTx(organizationId, (tx) =>
    store.listLeads(tx, organizationId, filter, page),
  );
  return { data: items.map(toLead), meta: pageMeta(total, page) };
}

/** GET /v1/leads/{id}: 404 when the id is malformed, unknown or another organization's (one answer). */
export async function findLead(db: Database, organizationId: string, id: string): Promise<Lead> {
  const row = isId(id, 'lead')
    ? await db.tenantTx(organizationId, (tx) => store.findLeadById(tx, organizationId, id))
    : null;
  if (!row) throw Errors.notFound('Lead', id);
  return toLead(row);
}
