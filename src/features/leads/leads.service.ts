import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import type { Database, Tx } from '../../db/database.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { newId } from '../../platform/ids/ids.ts';
import { normalizePhone } from '../../platform/text/phone.ts';
import {
  CONSENT_SOURCES,
  recomputeContactScore,
  recordFormConsents,
  upsertPortalContact,
} from '../contacts/index.ts';
import { requirePortalProperty } from '../properties/index.ts';
import { LeadSubmitted, VisitRequested } from './leads.events.ts';
import {
  REFERRER_MAX_LENGTH,
  type CreateLeadBody,
  type LeadReceipt,
  type ScheduleVisitBody,
  type VisitRequestReceipt,
} from './leads.schema.ts';
import * as store from './leads.store.ts';
import { recordAnalyticsEventInTx } from '../analytics/index.ts';

/** Tags a portal form adds to its contact, so the back office can tell where people came from. */
const LEAD_TAG = 'portal-lead';
const VISIT_TAG = 'portal-visit-request';
const DAY_MS = 86_400_000;
/** How far ahead a visit may be asked for. */
const VISIT_HORIZON_DAYS = 365;

/** Text a visitor typed, trimmed; null when nothing is left. */
function text(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/**
 * What every portal form checks beyond the schema: a name that is not just spaces (the schema
 * counts "  x" as 3 characters) and a phone number that is valid in E.164 once read in the
 * agency's default country. Runs before the transaction: bad input costs no database work.
 */
function checkPerson(caller: Caller, body: { firstName: string; phone: string }): { phone: string } {
  if (body.firstName.trim().length < 2) {
    throw Errors.invalidField('body.firstName', 'must have at least 2 characters other than spaces');
  }
  return { phone: normalizePhone(body.phone, caller.organization.defaultCountry) };
}

/**
 * A preferred visit date is a real calendar date from yesterday (UTC) to 365 days ahead.
 * Yesterday in UTC is still "today" somewhere (UTC-12), and a visitor there must be able to ask
 * for a visit today; anything earlier is in the past everywhere.
 */
function checkPreferredDate(date: string | undefined, now: Date): void {
  if (date === undefined) return;
  const day = Date.parse(`${date}T00:00:00.000Z`);
  // The schema's `date` format already refuses 2026-02-30; this keeps the rule in one readable place.
  if (Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== date) {
    throw Errors.invalidField('body.preferredDate', 'must be a real date written YYYY-MM-DD');
  }
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (day < today - DAY_MS) throw Errors.invalidField('body.preferredDate', 'must not be in the past');
  if (day > today + VISIT_HORIZON_DAYS * DAY_MS) {
    throw Errors.invalidField('body.preferredDate', `must be within ${VISIT_HORIZON_DAYS} days from today`);
  }
}

/**
 * The form's visitor as a WEBSITE contact (found by phone or email, else created), owned by the
 * listing agent and tagged with the form: both forms of this feature take their person this way.
 */
async function upsertVisitor(
  tx: Tx,
  organizationId: string,
  visitor: { firstName: string; lastName?: string; phone: string; email?: string; language?: string | null },
  ownerId: string | null,
  tag: string,
  actor: Actor,
) {
  return upsertPortalContact(
    tx,
    organizationId,
    {
      firstName: visitor.firstName,
      lastName: text(visitor.lastName) ?? undefined,
      phone: visitor.phone,
      email: visitor.email,
      source: 'WEBSITE',
      ownerId,
      tags: [tag],
      preferredLanguage: visitor.language ?? null,
    },
    actor,
  );
}

function utmOf(body: CreateLeadBody): Record<string, string> {
  const utm: Record<string, string> = {};
  const fields = {
    source: body.utmSource,
    medium: body.utmMedium,
    campaign: body.utmCampaign,
    content: body.utmContent,
  };
  for (const [name, value] of Object.entries(fields)) {
    const clean = text(value);
    if (clean !== null) utm[name] = clean;
  }
  return utm;
}

/**
 * The page a lead came from: the body's `referrer` (the schema checked it), else the request's
 * Referer header when it is an http(s) URL of at most 2048 characters; anything else is dropped,
 * never a 400 (a visitor cannot fix a header their browser sent). Decision 0202.
 */
function referrerOf(body: CreateLeadBody, header: string | undefined): string | null {
  if (body.referrer !== undefined) return body.referrer;
  const value = header?.trim();
  if (!value || value.length > REFERRER_MAX_LENGTH || !/^https?:\/\//i.test(value)) return null;
  return URL.canParse(value) ? value : null;
}

/**
 * The portal contact form (POST /v1/leads): in one transaction, upserts the contact (owned by the
 * listing agent when the lead is about a property), stores the lead with its property, UTM data,
 * referrer and whether it CREATED or MATCHED (on PHONE or EMAIL) its contact, counts a LEAD_FORM
 * analytics event and records `lead.submitted`, whose payload is the response only (the person is
 * in the `contact.*` event recorded before it).
 */
export async function captureLead(
  db: Database,
  caller: Caller,
  body: CreateLeadBody,
  request: { referer?: string; language?: string | null } = {},
): Promise<LeadReceipt> {
  const { phone } = checkPerson(caller, body);
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  const receipt: LeadReceipt = { success: true };

  await writeAs(db, caller, async (tx) => {
    const property =
      body.propertyId === undefined ? null : await requirePortalProperty(tx, organizationId, body.propertyId);
    const { contact, created, matchedOn } = await upsertVisitor(
      tx,
      organizationId,
      { ...body, phone, language: request.language ?? null },
      property?.agentId ?? null,
      LEAD_TAG,
      actor,
    );
    const { leadForm } = CONSENT_SOURCES;
    await recordFormConsents(tx, organizationId, contact.id, body.consents, leadForm, actor);
    await store.insertLead(tx, {
      id: newId('lead'),
      organizationId,
      contactId: contact.id,
      propertyId: property?.id ?? null,
      message: text(body.message),
      interestedIn: body.interestedIn ?? null,
      utm: utmOf(body),
      referrer: referrerOf(body, request.referer),
      outcome: created ? 'CREATED' : 'MATCHED',
      matchedOn,
    });
    await recomputeContactScore(tx, organizationId, contact.id);
    await recordAnalyticsEventInTx(tx, organizationId, {
      type: 'LEAD_FORM',
      propertyId: property?.id ?? null,
    });
    await recordEvent(tx, { type: LeadSubmitted.type, data: { ...receipt }, actor });
  });
  return receipt;
}

/**
 * A visit request (POST /v1/leads/schedule): in one transaction, upserts the contact (owned by
 * the listing agent), records a PENDING visit request and `visit.requested`. No appointment is
 * created: the agency confirms the visit later.
 */
export async function requestVisit(
  db: Database,
  caller: Caller,
  body: ScheduleVisitBody,
  now: Date = new Date(),
  language: string | null = null,
): Promise<VisitRequestReceipt> {
  const { phone } = checkPerson(caller, body);
  checkPreferredDate(body.preferredDate, now);
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);

  const request = await writeAs(db, caller, async (tx) => {
    const property = await requirePortalProperty(tx, organizationId, body.propertyId);
    const { contact } = await upsertVisitor(
      tx,
      organizationId,
      { ...body, phone, language },
      property.agentId,
      VISIT_TAG,
      actor,
    );
    const row = await store.insertVisitRequest(tx, {
      id: newId('vr'),
      organizationId,
      contactId: contact.id,
      propertyId: property.id,
      preferredDate: body.preferredDate ?? null,
      preferredTime: body.preferredTime ?? null,
      message: text(body.message),
      status: 'PENDING',
    });
    await recomputeContactScore(tx, organizationId, contact.id);
    await recordEvent(tx, {
      type: VisitRequested.type,
      data: {
        visitRequest: {
          id: row.id,
          status: row.status,
          propertyId: property.id,
          contactId: contact.id,
          preferredDate: row.preferredDate,
          preferredTime: row.preferredTime,
          message: row.message,
          createdAt: row.createdAt.toISOString(),
        },
        property: { id: property.id, title: property.title, agentId: property.agentId },
        contact,
      },
      actor,
    });
    return row;
  });
  return { success: true, visitRequestId: request.id, status: request.status };
}
