import type { Database, Tx } from '../../db/database.ts';
import { databaseError, UNIQUE_VIOLATION } from '../../db/errors.ts';
import type { ContactRow } from '../../db/schema.ts';
import { actorOf, type Principal } from '../../platform/auth/principal.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { pageMeta, pageRequest } from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { fold } from '../../platform/text/fold.ts';
import { toE164 } from '../../platform/text/phone.ts';
import { inTenantOrganization, requireTenantOrganization } from '../admin/admin.service.ts';
import { ContactCreated, ContactDeleted, ContactUpdated } from './contacts.events.ts';
import {
  WRITABLE_CONTACT_FIELDS,
  type Contact,
  type ContactSource,
  type ContactStatus,
  type ContactType,
  type CreateContactBody,
  type ListContactsQuery,
  type UpdateContactBody,
} from './contacts.schema.ts';
import { updateContactScore } from './contacts.score.ts';
import * as store from './contacts.store.ts';
import { isAgentOf } from '../agents/agents.service.ts';

/** The SPEC Contact as the API and event payloads show it. */
export function toContact(row: ContactRow): Contact {
  return {
    id: row.id,
    code: row.code,
    firstName: row.firstName,
    lastName: row.lastName,
    fullName: [row.firstName, row.lastName].filter(Boolean).join(' '),
    email: row.email,
    phone: row.phone,
    source: row.source as ContactSource,
    status: row.status as ContactStatus,
    type: row.type as ContactType,
    score: row.score,
    ownerId: row.ownerId,
    preferredCity: row.preferredCity,
    preferredType: row.preferredType,
    budget: row.budget,
    currency: row.currency,
    tags: row.tags,
    optedOut: row.optedOut,
    externalId: row.externalId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Recomputes a contact's score from its activity (docs/contacts.md "Score") in one statement,
 * inside the caller's transaction, right after the activity row is written; returns the new score.
 * Records no event: the score is derived, and the flow's own event already tells what happened.
 */
export async function recomputeContactScore(
  tx: Tx,
  organizationId: string,
  contactId: string,
): Promise<number> {
  const score = await updateContactScore(tx, organizationId, contactId);
  if (score === null) throw Errors.notFound('Contact', contactId);
  return score;
}

/**
 * A phone number in E.164, read in the organization's default country; a 400 naming `field` when
 * it is not a valid number.
 */
export function normalizePhone(raw: string, defaultCountry: string, field = 'body.phone'): string {
  const e164 = toE164(raw, defaultCountry);
  if (!e164) {
    throw Errors.invalidField(
      field,
      `is not a valid phone number (use the international format, e.g. +34612345678, or a ${defaultCountry} number)`,
    );
  }
  return e164;
}

/** What a portal form knows about the person who sent it. */
export interface PortalContactInput {
  firstName: string;
  lastName?: string;
  /** Already E.164 (normalizePhone). */
  phone: string;
  email?: string;
  source: ContactSource;
  ownerId?: string | null;
  preferredCity?: string;
  preferredType?: string;
  budget?: number;
  currency?: string;
  tags?: string[];
}

/** The `search_text` of a contact (what `q` matches); the benchmark generator fills it with this too. */
export function searchText(row: Pick<ContactRow, 'firstName' | 'lastName' | 'email' | 'phone'>): string {
  return fold([row.firstName, row.lastName, row.email ?? '', row.phone ?? ''].join(' '));
}

/**
 * Creates or updates the contact behind a portal form, inside the caller's transaction: matched by
 * E.164 phone, then by email. A new person is created NEW/LEAD; a known one gets the missing
 * details filled in, fresh preferences, the new tags and a new `lastActivityAt`. Records
 * `contact.created` or `contact.updated` in the same transaction.
 */
export async function upsertPortalContact(
  tx: Tx,
  organizationId: string,
  input: PortalContactInput,
  actor: Actor,
): Promise<{ contact: Contact; created: boolean }> {
  const emailKey = input.email ? input.email.trim().toLowerCase() : null;
  const match = { phone: input.phone, emailKey };
  let { byPhone, byEmail } = await store.findContactForUpsert(tx, organizationId, match);
  const now = new Date();

  if (!byPhone && !byEmail) {
    const code = `CT-${String(await store.nextCounter(tx, organizationId, 'contact')).padStart(6, '0')}`;
    const fields = {
      firstName: input.firstName.trim(),
      lastName: input.lastName?.trim() ?? '',
      email: input.email?.trim() ?? null,
      phone: input.phone,
    };
    const row = await store.insertContactUnlessTaken(tx, {
      id: newId('ct'),
      organizationId,
      code,
      ...fields,
      emailKey,
      source: input.source,
      status: 'NEW',
      type: 'LEAD',
      ownerId: input.ownerId ?? null,
      preferredCity: input.preferredCity ?? null,
      preferredType: input.preferredType ?? null,
      budget: input.budget ?? null,
      currency: input.budget !== undefined ? (input.currency ?? null) : null,
      tags: [...new Set(input.tags ?? [])],
      searchText: searchText(fields),
      lastActivityAt: now,
    });
    if (row) {
      const contact = toContact(row);
      await recordEvent(tx, { type: ContactCreated.type, data: { contact }, actor });
      return { contact, created: true };
    }
    // A parallel form of the same person committed first: update that contact instead.
    ({ byPhone, byEmail } = await store.findContactForUpsert(tx, organizationId, match));
  }
  const existing = byPhone ?? byEmail;
  if (!existing) throw Errors.internal(new Error('contact upsert found no contact after a unique conflict'));

  const changes: Partial<store.NewContact> = { lastActivityAt: now };
  const changed: string[] = [];
  const set = <K extends keyof store.NewContact>(field: K, value: store.NewContact[K]) => {
    if (value === undefined || value === null || existing[field as keyof ContactRow] === value) return;
    changes[field] = value;
    changed.push(field);
  };
  // A phone or email that belongs to another contact stays where it is (unique per organization).
  if (!existing.phone && !byEmail?.phone) set('phone', input.phone);
  if (!existing.emailKey && emailKey && !byEmail) {
    set('email', input.email?.trim());
    changes.emailKey = emailKey;
  }
  if (!existing.lastName && input.lastName) set('lastName', input.lastName.trim());
  if (!existing.ownerId && input.ownerId) set('ownerId', input.ownerId);
  set('preferredCity', input.preferredCity);
  set('preferredType', input.preferredType);
  if (input.budget !== undefined && existing.budget !== input.budget) {
    set('budget', input.budget);
    set('currency', input.currency);
  }
  const tags = [...new Set([...existing.tags, ...(input.tags ?? [])])];
  if (tags.length !== existing.tags.length) {
    changes.tags = tags;
    changed.push('tags');
  }
  changes.searchText = searchText({
    firstName: existing.firstName,
    lastName: (changes.lastName as string | undefined) ?? existing.lastName,
    email: (changes.email as string | undefined) ?? existing.email,
    phone: (changes.phone as string | undefined) ?? existing.phone,
  });
  const row = await store.updateContact(tx, organizationId, existing.id, changes);
  if (!row) throw Errors.internal(new Error(`contact ${existing.id} vanished inside its transaction`));
  const contact = toContact(row);
  await recordEvent(tx, {
    type: ContactUpdated.type,
    data: { contact, changes: [...changed, 'lastActivityAt'] },
    actor,
  });
  return { contact, created: false };
}

/** One contact of the organization, inside the caller's transaction; null when unknown or another tenant's. */
export async function findContactInTx(tx: Tx, organizationId: string, id: string): Promise<Contact | null> {
  const row = await store.findContactById(tx, organizationId, id);
  return row ? toContact(row) : null;
}

// ---------------------------------------------------------------------------------------------
// The contacts API (v1, secret keys) and the back office: list, read, create, change, delete.

/** Back-office changes are recorded with a SYSTEM actor (the operator). */
const OPERATOR: Actor = { kind: 'SYSTEM', userId: null };

/** What writes fall back on: the organization's phone country and currency. */
interface OrganizationDefaults {
  defaultCountry: string;
  defaultCurrency: string;
}

/**
 * Runs `work` in the tenant transaction of an admin route's organization (live or test twin):
 * 404 for a malformed or unknown id, before anything else is read.
 */
async function adminTx<T>(
  db: Database,
  organizationId: string,
  work: (tx: Tx, organization: OrganizationDefaults) => Promise<T>,
): Promise<T> {
  return inTenantOrganization(db, organizationId, work);
}

async function loadContact(tx: Tx, organizationId: string, contactId: string): Promise<ContactRow> {
  const row = isId(contactId, 'ct') ? await store.findContactById(tx, organizationId, contactId) : null;
  // Another organization's contact is as missing as one that never existed.
  if (!row) throw Errors.notFound('Contact', contactId);
  return row;
}

/**
 * A date means its start (UTC). The pattern admits 2026-02-30, which JavaScript would roll over
 * into March: the calendar day is checked on its own, so it is a 400 naming the parameter.
 */
function instantOf(value: string | undefined, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const day = value.slice(0, 10);
  const midnight = new Date(`${day}T00:00:00.000Z`);
  const instant = value.length === 10 ? midnight : new Date(value);
  if (
    Number.isNaN(instant.getTime()) ||
    Number.isNaN(midnight.getTime()) ||
    midnight.toISOString().slice(0, 10) !== day
  ) {
    throw Errors.invalidField(field, 'is not a real date or date-time');
  }
  return instant;
}

/** Input that reads as a phone number: digits with the usual separators. */
const PHONE_LIKE = /^[+\d\s().-]*\d[+\d\s().-]*$/;

/**
 * `q` as fragments of `search_text`: a phone-like query becomes its digits (612 34 56 finds
 * +34612345678), anything else its folded words, each of which must occur.
 */
export function searchWords(q: string | undefined): string[] | undefined {
  if (q === undefined) return undefined;
  if (PHONE_LIKE.test(q.trim())) return [q.replace(/\D/g, '')];
  const words = fold(q).split(/\s+/).filter(Boolean);
  return words.length > 0 ? words : undefined;
}

async function listIn(tx: Tx, organizationId: string, query: ListContactsQuery) {
  const page = pageRequest(query);
  const by = query.sortBy ?? 'createdAt';
  const sort = { by, order: query.sortOrder ?? (by === 'lastName' ? 'asc' : 'desc') } as const;
  const filter: store.ContactFilter = {
    searchWords: searchWords(query.q),
    status: query.status,
    source: query.source,
    type: query.type,
    tag: query.tag,
    ownerId: query.ownerId,
    createdFrom: instantOf(query.createdAfter, 'querystring.createdAfter'),
    createdBefore: instantOf(query.createdBefore, 'querystring.createdBefore'),
    optedOut: query.optedOut,
    externalId: query.externalId,
  };
  const { items, total } = await store.listContacts(tx, organizationId, filter, sort, page);
  return { data: items.map(toContact), meta: pageMeta(total, page) };
}

/** Contacts of the key's organization, filtered, sorted and paged (GET /v1/contacts). */
export async function listContacts(db: Database, principal: Principal, query: ListContactsQuery) {
  const organizationId = principal.organization.id;
  return db.tenantTx(organizationId, (tx) => listIn(tx, organizationId, query));
}

/** Contacts of an organization for the back office: the same filters as GET /v1/contacts. */
export async function listAdminContacts(db: Database, organizationId: string, query: ListContactsQuery) {
  return adminTx(db, organizationId, (tx) => listIn(tx, organizationId, query));
}

/** One contact; 404 outside the organization (GET /v1/contacts/{id}). */
export async function getContact(db: Database, principal: Principal, contactId: string): Promise<Contact> {
  const organizationId = principal.organization.id;
  return db.tenantTx(organizationId, async (tx) =>
    toContact(await loadContact(tx, organizationId, contactId)),
  );
}

/** One contact, back-office view; 404 outside the organization. */
export async function getAdminContact(
  db: Database,
  organizationId: string,
  contactId: string,
): Promise<Contact> {
  return adminTx(db, organizationId, async (tx) =>
    toContact(await loadContact(tx, organizationId, contactId)),
  );
}

function duplicateOf(holder: ContactRow, what: 'phone' | 'email', value: string) {
  return Errors.duplicate(
    `Contact ${holder.id} already has this ${what === 'phone' ? 'phone number' : 'email'} (${value})`,
    { existingId: holder.id },
  );
}

/** 409 DUPLICATE naming the contact that holds the phone or email, when another one does. */
async function checkUnique(
  tx: Tx,
  organizationId: string,
  match: { phone: string | null; emailKey: string | null },
  exceptId: string | null,
): Promise<void> {
  const { byPhone, byEmail } = await store.findContactHolders(tx, organizationId, match, exceptId);
  if (byPhone) throw duplicateOf(byPhone, 'phone', match.phone as string);
  if (byEmail) throw duplicateOf(byEmail, 'email', byEmail.email ?? (match.emailKey as string));
}

const PHONE_KEY = 'contacts_organization_id_phone_key';
const EMAIL_KEY = 'contacts_organization_id_email_key_key';

/**
 * Runs a write; when a parallel write took the phone or email between our check and our statement
 * (a unique violation that aborted the transaction), answers the same 409 as the check, naming the
 * contact that won, read in a fresh transaction.
 */
async function mappingDuplicates<T>(
  db: Database,
  organizationId: string,
  match: () => { phone: string | null; emailKey: string | null; exceptId: string | null },
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const failure = databaseError(error);
    if (failure?.code !== UNIQUE_VIOLATION || !failure.constraint) throw error;
    if (failure.constraint !== PHONE_KEY && failure.constraint !== EMAIL_KEY) throw error;
    const { exceptId, ...keys } = match();
    await db.tenantTx(organizationId, (tx) => checkUnique(tx, organizationId, keys, exceptId));
    throw error;
  }
}

/** Column values of the fields a body sends, normalized and checked (phone, owner). */
async function columnsOf(
  tx: Tx,
  organizationId: string,
  organization: OrganizationDefaults,
  body: UpdateContactBody,
): Promise<Partial<store.NewContact>> {
  const columns: Partial<store.NewContact> = {};
  const blankToNull = (value: string | null) => (value === null ? null : value.trim() || null);
  if (body.firstName !== undefined) {
    const firstName = body.firstName.trim();
    if (!firstName) throw Errors.invalidField('body.firstName', 'must not be blank');
    columns.firstName = firstName;
  }
  if (body.lastName !== undefined) columns.lastName = body.lastName.trim();
  if (body.email !== undefined) {
    columns.email = blankToNull(body.email);
    columns.emailKey = columns.email?.toLowerCase() ?? null;
  }
  if (body.phone !== undefined) {
    columns.phone = body.phone === null ? null : normalizePhone(body.phone, organization.defaultCountry);
  }
  if (body.source !== undefined) columns.source = body.source;
  if (body.status !== undefined) columns.status = body.status;
  if (body.type !== undefined) columns.type = body.type;
  if (body.ownerId !== undefined) {
    if (body.ownerId !== null && !(await isAgentOf(tx, organizationId, body.ownerId))) {
      throw Errors.invalidField('body.ownerId', 'does not name an agent of this organization');
    }
    columns.ownerId = body.ownerId;
  }
  if (body.preferredCity !== undefined) columns.preferredCity = blankToNull(body.preferredCity);
  if (body.preferredType !== undefined) columns.preferredType = body.preferredType;
  if (body.budget !== undefined) columns.budget = body.budget;
  if (body.currency !== undefined) columns.currency = body.currency;
  if (body.tags !== undefined) {
    columns.tags = [...new Set(body.tags.map((tag) => tag.trim()).filter(Boolean))];
  }
  if (body.optedOut !== undefined) columns.optedOut = body.optedOut;
  if (body.externalId !== undefined) columns.externalId = blankToNull(body.externalId);
  return columns;
}

/**
 * A budget is in a currency: the organization's unless one is given; without a budget the
 * currency is cleared too (unless this very write sets one).
 */
function currencyFor(
  budget: number | null | undefined,
  currency: string | null | undefined,
  given: boolean,
  organization: OrganizationDefaults,
): string | null {
  if (budget === null || budget === undefined) return given ? (currency ?? null) : null;
  return currency ?? organization.defaultCurrency;
}

async function insertNew(
  tx: Tx,
  organizationId: string,
  organization: OrganizationDefaults,
  body: CreateContactBody,
  defaults: { source: ContactSource },
  actor: Actor,
): Promise<Contact> {
  const columns = await columnsOf(tx, organizationId, organization, body);
  const match = { phone: columns.phone ?? null, emailKey: columns.emailKey ?? null };
  await checkUnique(tx, organizationId, match, null);
  const person = {
    firstName: columns.firstName as string,
    lastName: columns.lastName ?? '',
    email: columns.email ?? null,
    phone: columns.phone ?? null,
  };
  const code = `CT-${String(await store.nextCounter(tx, organizationId, 'contact')).padStart(6, '0')}`;
  const row = await store.insertContactUnlessTaken(tx, {
    id: newId('ct'),
    organizationId,
    code,
    ...columns,
    ...person,
    emailKey: match.emailKey,
    source: columns.source ?? defaults.source,
    status: columns.status ?? 'NEW',
    type: columns.type ?? 'LEAD',
    currency: currencyFor(columns.budget, columns.currency, body.currency !== undefined, organization),
    tags: columns.tags ?? [],
    searchText: searchText(person),
  });
  if (!row) {
    // A parallel write of the same phone or email committed after our check: it is visible now.
    await checkUnique(tx, organizationId, match, null);
    throw Errors.internal(new Error('contact insert conflicted on neither phone nor email'));
  }
  const contact = toContact(row);
  await recordEvent(tx, { type: ContactCreated.type, data: { contact }, actor });
  return contact;
}

/** Creates a contact with an API key (POST /v1/contacts): 409 DUPLICATE when its phone or email is taken. */
export async function createContact(
  db: Database,
  principal: Principal,
  body: CreateContactBody,
): Promise<Contact> {
  const organizationId = principal.organization.id;
  return db.tenantTx(organizationId, (tx) =>
    insertNew(tx, organizationId, principal.organization, body, { source: 'API' }, actorOf(principal)),
  );
}

/** Creates a contact in the back office: the same rules as the API, source OTHER by default. */
export async function createAdminContact(
  db: Database,
  organizationId: string,
  body: CreateContactBody,
): Promise<Contact> {
  return adminTx(db, organizationId, (tx, organization) =>
    insertNew(tx, organizationId, organization, body, { source: 'OTHER' }, OPERATOR),
  );
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

async function applyChanges(
  db: Database,
  organizationId: string,
  contactId: string,
  body: UpdateContactBody,
  defaultsOf: (tx: Tx) => Promise<OrganizationDefaults>,
  actor: Actor,
): Promise<Contact> {
  let match = { phone: null as string | null, emailKey: null as string | null, exceptId: contactId };
  return mappingDuplicates(
    db,
    organizationId,
    () => match,
    () =>
      db.tenantTx(organizationId, async (tx) => {
        const defaults = await defaultsOf(tx);
        const current = await loadContact(tx, organizationId, contactId);
        const columns = await columnsOf(tx, organizationId, defaults, body);
        if (columns.budget !== undefined || columns.currency !== undefined) {
          const given = columns.currency !== undefined;
          columns.currency = currencyFor(
            columns.budget !== undefined ? columns.budget : current.budget,
            given ? columns.currency : current.currency,
            given,
            defaults,
          );
        }
        const changes: Partial<store.NewContact> = {};
        const changed: string[] = [];
        for (const field of WRITABLE_CONTACT_FIELDS) {
          const value = columns[field];
          if (value === undefined || sameValue(value, current[field])) continue;
          (changes as Record<string, unknown>)[field] = value;
          changed.push(field);
        }
        // A no-op PATCH writes nothing and tells no one.
        if (changed.length === 0) return toContact(current);

        if (changes.email !== undefined) changes.emailKey = columns.emailKey ?? null;
        match = {
          phone: changes.phone ?? null,
          emailKey:
            changes.emailKey !== undefined && changes.emailKey !== current.emailKey ? changes.emailKey : null,
          exceptId: contactId,
        };
        await checkUnique(tx, organizationId, match, contactId);
        const person = {
          firstName: changes.firstName ?? current.firstName,
          lastName: changes.lastName ?? current.lastName,
          email: changes.email !== undefined ? changes.email : current.email,
          phone: changes.phone !== undefined ? changes.phone : current.phone,
        };
        changes.searchText = searchText(person);
        const row = await store.updateContact(tx, organizationId, contactId, changes);
        if (!row) throw Errors.notFound('Contact', contactId);
        const contact = toContact(row);
        await recordEvent(tx, { type: ContactUpdated.type, data: { contact, changes: changed }, actor });
        return contact;
      }),
  );
}

/**
 * Changes some fields of a contact (PATCH /v1/contacts/{id}): null clears a nullable field; a new
 * phone or email is checked for duplicates; `contact.updated` names the fields that really changed,
 * and a request that changes nothing records no event.
 */
export async function updateContact(
  db: Database,
  principal: Principal,
  contactId: string,
  body: UpdateContactBody,
): Promise<Contact> {
  return applyChanges(
    db,
    principal.organization.id,
    contactId,
    body,
    async () => principal.organization,
    actorOf(principal),
  );
}

/** Changes some fields of a contact in the back office: the same rules as the API. */
export async function updateAdminContact(
  db: Database,
  organizationId: string,
  contactId: string,
  body: UpdateContactBody,
): Promise<Contact> {
  if (!isId(organizationId, 'org')) throw Errors.notFound('Organization', organizationId);
  return applyChanges(
    db,
    organizationId,
    contactId,
    body,
    (tx) => requireTenantOrganization(tx, organizationId),
    OPERATOR,
  );
}

/**
 * Deletes a contact (back office), and with it its leads, visit requests, finder searches, deals
 * and usage (the schema cascades); appointments and tasks stay, without a contact.
 */
export async function deleteAdminContact(
  db: Database,
  organizationId: string,
  contactId: string,
): Promise<{ id: string; deleted: true }> {
  return adminTx(db, organizationId, async (tx) => {
    await loadContact(tx, organizationId, contactId);
    const row = await store.deleteContact(tx, organizationId, contactId);
    if (!row) throw Errors.notFound('Contact', contactId);
    await recordEvent(tx, { type: ContactDeleted.type, data: { contact: toContact(row) }, actor: OPERATOR });
    return { id: contactId, deleted: true as const };
  });
}

/** True when `id` is a contact of the organization: how other features check a contact reference. */
export async function isContactOf(tx: Tx, organizationId: string, id: string): Promise<boolean> {
  return isId(id, 'ct') && (await store.findContactById(tx, organizationId, id)) !== null;
}

/**
 * The contact with this E.164 phone, inside the caller's transaction (the messaging channel knows
 * people by number); null when the organization has none.
 */
export async function findContactByPhone(
  tx: Tx,
  organizationId: string,
  phone: string,
): Promise<Contact | null> {
  const { byPhone } = await store.findContactForUpsert(tx, organizationId, { phone, emailKey: null });
  return byPhone ? toContact(byPhone) : null;
}

/**
 * Marks a contact as opted out of messaging (an opt-out keyword), inside the caller's transaction,
 * and records `contact.updated` with `changes: ["optedOut"]`; nothing happens when it already is.
 */
export async function optOutContact(
  tx: Tx,
  organizationId: string,
  contactId: string,
  actor: Actor,
): Promise<Contact> {
  const current = await loadContact(tx, organizationId, contactId);
  if (current.optedOut) return toContact(current);
  const row = await store.updateContact(tx, organizationId, contactId, { optedOut: true });
  if (!row) throw Errors.notFound('Contact', contactId);
  const contact = toContact(row);
  await recordEvent(tx, { type: ContactUpdated.type, data: { contact, changes: ['optedOut'] }, actor });
  return contact;
}
