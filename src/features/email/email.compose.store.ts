// What an email is composed from (decision 0267), read in the organization's transaction: the contact
// with their EMAIL consent, a lead, a visit request (the organization and its settings: email.store.ts).
import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';

export interface EmailContact {
  id: string;
  firstName: string;
  lastName: string;
  email: string | null;
  phone: string | null;
  preferredLanguage: string | null;
  optedOut: boolean;
  /** The contact's current EMAIL consent (GRANTED, REVOKED, …), null when never given. */
  emailConsent: string | null;
}

export async function contactForEmail(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<EmailContact | null> {
  const rows = await queryRows<{
    id: string;
    first_name: string;
    last_name: string | null;
    email: string | null;
    phone: string | null;
    preferred_language: string | null;
    opted_out: boolean;
    email_consent: string | null;
  }>(
    tx,
    sql`SELECT c.id, c.first_name, c.last_name, c.email, c.phone, c.preferred_language, c.opted_out,
          (SELECT k.status FROM contact_consents k
           WHERE k.organization_id = c.organization_id AND k.contact_id = c.id AND k.channel = 'EMAIL'
           ORDER BY k.created_at DESC, k.id DESC LIMIT 1) AS email_consent
        FROM contacts c WHERE c.organization_id = ${organizationId} AND c.id = ${id}`,
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name ?? '',
    email: row.email,
    phone: row.phone,
    preferredLanguage: row.preferred_language,
    optedOut: row.opted_out,
    emailConsent: row.email_consent,
  };
}

/** A lead or a visit request with its listing and the listing's agent. */
export interface InquiryForEmail {
  contactId: string;
  message: string | null;
  propertyTitle: string | null;
  propertyCode: string | null;
  agentName: string | null;
  agentEmail: string | null;
  preferredDate: string | null;
  preferredTime: string | null;
}

interface InquiryRow {
  contact_id: string;
  message: string | null;
  title: string | null;
  code: string | null;
  agent_first_name: string | null;
  agent_last_name: string | null;
  agent_email: string | null;
  preferred_date: string | Date | null;
  preferred_time: string | null;
}

function inquiryOf(row: InquiryRow | undefined): InquiryForEmail | null {
  if (!row) return null;
  const agentName = [row.agent_first_name, row.agent_last_name].filter(Boolean).join(' ').trim();
  const date = row.preferred_date;
  return {
    contactId: row.contact_id,
    message: row.message,
    propertyTitle: row.title,
    propertyCode: row.code,
    agentName: agentName === '' ? null : agentName,
    agentEmail: row.agent_email,
    preferredDate:
      date === null ? null : typeof date === 'string' ? date.slice(0, 10) : date.toISOString().slice(0, 10),
    preferredTime: row.preferred_time,
  };
}

const withListing = sql`LEFT JOIN properties p ON p.organization_id = i.organization_id AND p.id = i.property_id
  LEFT JOIN agents a ON a.organization_id = p.organization_id AND a.id = p.agent_id AND a.active`;

/** A lead of the portal's contact form (LEAD_ALERT). */
export async function leadForEmail(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<InquiryForEmail | null> {
  const rows = await queryRows<InquiryRow>(
    tx,
    sql`SELECT i.contact_id, i.message, p.title, p.code, a.first_name AS agent_first_name,
          a.last_name AS agent_last_name, a.email AS agent_email, NULL AS preferred_date, NULL AS preferred_time
        FROM leads i ${withListing}
        WHERE i.organization_id = ${organizationId} AND i.id = ${id}`,
  );
  return inquiryOf(rows[0]);
}

/** A visit request (VISIT_REQUEST_ALERT). */
export async function visitRequestForEmail(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<InquiryForEmail | null> {
  const rows = await queryRows<InquiryRow>(
    tx,
    sql`SELECT i.contact_id, i.message, p.title, p.code, a.first_name AS agent_first_name,
          a.last_name AS agent_last_name, a.email AS agent_email, i.preferred_date, i.preferred_time
        FROM visit_requests i ${withListing}
        WHERE i.organization_id = ${organizationId} AND i.id = ${id}`,
  );
  return inquiryOf(rows[0]);
}
