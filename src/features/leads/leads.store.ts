import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { countMatches, type Tx } from '../../db/database.ts';
import { contacts, leads, properties, visitRequests } from '../../db/schema.ts';

export type LeadRow = typeof leads.$inferSelect;
export type NewLead = typeof leads.$inferInsert;
export type VisitRequestRow = typeof visitRequests.$inferSelect;
export type NewVisitRequest = typeof visitRequests.$inferInsert;

export async function insertLead(tx: Tx, row: NewLead): Promise<LeadRow> {
  const rows = await tx.insert(leads).values(row).returning();
  return rows[0] as LeadRow;
}

export async function insertVisitRequest(tx: Tx, row: NewVisitRequest): Promise<VisitRequestRow> {
  const rows = await tx.insert(visitRequests).values(row).returning();
  return rows[0] as VisitRequestRow;
}

/** A lead with the names of what it points to (the Lead resource shows them). */
export interface LeadWithNames {
  lead: LeadRow;
  contact: { id: string; firstName: string; lastName: string };
  property: { id: string; code: string; title: string } | null;
}

export interface LeadListFilter {
  createdAfter?: Date;
  createdBefore?: Date;
  propertyId?: string;
  utmSource?: string;
  /** CREATED or MATCHED (leads_organization_id_outcome_created_at_idx). */
  outcome?: NonNullable<LeadRow['outcome']>;
}

/** What a lead or visit request shows of its contact and property. */
const CONTACT_NAME = { id: contacts.id, firstName: contacts.firstName, lastName: contacts.lastName };
const PROPERTY_NAME = { id: properties.id, code: properties.code, title: properties.title };

/**
 * Leads joined to their contact (never null: a contact's deletion deletes its leads) and property
 * (null for a general enquiry, or once the property is deleted).
 */
function withNames(tx: Tx) {
  return tx
    .select({ lead: leads, contact: CONTACT_NAME, property: PROPERTY_NAME })
    .from(leads)
    .innerJoin(
      contacts,
      and(eq(contacts.organizationId, leads.organizationId), eq(contacts.id, leads.contactId)),
    )
    .leftJoin(
      properties,
      and(eq(properties.organizationId, leads.organizationId), eq(properties.id, leads.propertyId)),
    );
}

function leadConditions(organizationId: string, filter: LeadListFilter): SQL[] {
  const c: SQL[] = [eq(leads.organizationId, organizationId)];
  if (filter.createdAfter) c.push(gte(leads.createdAt, filter.createdAfter));
  if (filter.createdBefore) c.push(lt(leads.createdAt, filter.createdBefore));
  if (filter.propertyId !== undefined) c.push(eq(leads.propertyId, filter.propertyId));
  if (filter.utmSource !== undefined) c.push(sql`${leads.utm} ->> 'source' = ${filter.utmSource}`);
  if (filter.outcome !== undefined) c.push(eq(leads.outcome, filter.outcome));
  return c;
}

/** One page of the organization's leads matching `filter`, newest first, and the count of all matches. */
export async function listLeads(
  tx: Tx,
  organizationId: string,
  filter: LeadListFilter,
  page: { limit: number; offset: number },
): Promise<{ items: LeadWithNames[]; total: number }> {
  const where = and(...leadConditions(organizationId, filter));
  const [items, total] = await Promise.all([
    withNames(tx)
      .where(where)
      .orderBy(desc(leads.createdAt), desc(leads.id))
      .limit(page.limit)
      .offset(page.offset),
    countMatches(tx, leads, where),
  ]);
  return { items, total };
}

export async function findLeadById(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<LeadWithNames | null> {
  const rows = await withNames(tx)
    .where(and(eq(leads.organizationId, organizationId), eq(leads.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/** A visit request with the names of its contact and property (both kept: deleting either deletes it). */
export interface VisitRequestWithNames {
  visitRequest: VisitRequestRow;
  contact: LeadWithNames['contact'];
  property: NonNullable<LeadWithNames['property']>;
}

function visitRequestsWithNames(tx: Tx) {
  return tx
    .select({ visitRequest: visitRequests, contact: CONTACT_NAME, property: PROPERTY_NAME })
    .from(visitRequests)
    .innerJoin(
      contacts,
      and(
        eq(contacts.organizationId, visitRequests.organizationId),
        eq(contacts.id, visitRequests.contactId),
      ),
    )
    .innerJoin(
      properties,
      and(
        eq(properties.organizationId, visitRequests.organizationId),
        eq(properties.id, visitRequests.propertyId),
      ),
    );
}

export async function findVisitRequestById(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<VisitRequestWithNames | null> {
  const rows = await visitRequestsWithNames(tx)
    .where(and(eq(visitRequests.organizationId, organizationId), eq(visitRequests.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * The visit request, its row locked until the caller's transaction ends: two decisions on one
 * request run one after the other, so the second sees the first's status.
 */
export async function lockVisitRequest(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<VisitRequestRow | null> {
  const rows = await tx
    .select()
    .from(visitRequests)
    .where(and(eq(visitRequests.organizationId, organizationId), eq(visitRequests.id, id)))
    .for('update');
  return rows[0] ?? null;
}

/** Records a decision on a visit request, stamped with the transaction time (decidedAt, updatedAt). */
export async function decideVisitRequest(
  tx: Tx,
  organizationId: string,
  id: string,
  decision: { status: VisitRequestRow['status']; appointmentId?: string; declineReason?: string },
): Promise<VisitRequestRow | null> {
  const rows = await tx
    .update(visitRequests)
    .set({
      status: decision.status,
      appointmentId: decision.appointmentId ?? null,
      declineReason: decision.declineReason ?? null,
      decidedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(visitRequests.organizationId, organizationId), eq(visitRequests.id, id)))
    .returning();
  return rows[0] ?? null;
}

/** One page of the organization's visit requests (of one status, if given), newest first, and the count. */
export async function listVisitRequests(
  tx: Tx,
  organizationId: string,
  filter: { status?: VisitRequestRow['status'] },
  page: { limit: number; offset: number },
): Promise<{ items: VisitRequestWithNames[]; total: number }> {
  const where = and(
    eq(visitRequests.organizationId, organizationId),
    filter.status === undefined ? undefined : eq(visitRequests.status, filter.status),
  );
  const [items, total] = await Promise.all([
    visitRequestsWithNames(tx)
      .where(where)
      .orderBy(desc(visitRequests.createdAt), desc(visitRequests.id))
      .limit(page.limit)
      .offset(page.offset),
    countMatches(tx, visitRequests, where),
  ]);
  return { items, total };
}
