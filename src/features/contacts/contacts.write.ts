// The contacts API's and the back office's writes: create, change, delete, with the phone/email uniqueness rules.
import type { Database, Tx } from '../../db/database.ts';
import { databaseError, UNIQUE_VIOLATION } from '../../db/errors.ts';
import type { ContactRow } from '../../db/schema.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { tombstoneOf, type Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { nextCode } from '../../platform/ids/codes.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { normalizePhone } from '../../platform/text/phone.ts';
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import { CONSENT_SOURCES, recordConsent } from './contacts.consent.ts';
import { ContactCreated, ContactDeleted, ContactUpdated } from './contacts.events.ts';
import {
  WRITABLE_CONTACT_FIELDS,
  type Contact,
  type ContactSource,
  type CreateContactBody,
  type UpdateContactBody,
} from './contacts.schema.ts';
import * as store from './contacts.store.ts';
import { isAgentOf } from '../agents/index.ts';
import { loadContact, searchText, toContact, type OrganizationDefaults } from './contacts.service.ts';

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
 * The phone and email a change gives a contact (`exceptId`), once its statement is known: kept outside
 * the transaction, so a unique violation that aborted it can still name the contact that holds them.
 */
export interface UniqueClaim {
  phone: string | null;
  emailKey: string | null;
  exceptId: string | null;
}

/**
 * Runs a write; when a parallel write took the phone or email between our check and our statement
 * (a unique violation that aborted the transaction), answers the same 409 as the check, naming the
 * contact that won, read in a fresh transaction of the caller's organization. That one is opened as a
 * write, on the primary: a replica may not have the winner yet.
 */
async function mappingDuplicates<T>(
  db: Database,
  caller: Caller,
  claim: UniqueClaim,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isDuplicateViolation(error))
      await writeAs(db, caller, (tx) => explainDuplicate(tx, caller.organization.id, claim));
    throw error;
  }
}

/** A unique violation of a contact's phone or email: a parallel write took it first. */
export function isDuplicateViolation(error: unknown): boolean {
  const failure = databaseError(error);
  return (
    failure?.code === UNIQUE_VIOLATION &&
    (failure.constraint === PHONE_KEY || failure.constraint === EMAIL_KEY)
  );
}

/** Throws the 409 DUPLICATE naming the contact that holds the claimed phone or email (run in `tx`). */
export async function explainDuplicate(tx: Tx, organizationId: string, claim: UniqueClaim): Promise<void> {
  const { exceptId, ...keys } = claim;
  await checkUnique(tx, organizationId, keys, exceptId);
}

/**
 * Column values of the fields a body sends, normalized and checked (phone, owner); a 400 names the
 * field under `path` (`body`, or a batch item's `body.contacts[3]`).
 */
export async function columnsOf(
  tx: Tx,
  organizationId: string,
  organization: OrganizationDefaults,
  body: UpdateContactBody,
  path = 'body',
): Promise<Partial<store.NewContact>> {
  const columns: Partial<store.NewContact> = {};
  const blankToNull = (value: string | null) => (value === null ? null : value.trim() || null);
  if (body.firstName !== undefined) {
    const firstName = body.firstName.trim();
    if (!firstName) throw Errors.invalidField(`${path}.firstName`, 'must not be blank');
    columns.firstName = firstName;
  }
  if (body.lastName !== undefined) columns.lastName = body.lastName.trim();
  if (body.email !== undefined) {
    columns.email = blankToNull(body.email);
    columns.emailKey = columns.email?.toLowerCase() ?? null;
  }
  if (body.phone !== undefined) {
    columns.phone =
      body.phone === null ? null : normalizePhone(body.phone, organization.defaultCountry, `${path}.phone`);
  }
  if (body.source !== undefined) columns.source = body.source;
  if (body.status !== undefined) columns.status = body.status;
  if (body.type !== undefined) columns.type = body.type;
  if (body.ownerId !== undefined) {
    if (body.ownerId !== null && !(await isAgentOf(tx, organizationId, body.ownerId))) {
      throw Errors.invalidField(`${path}.ownerId`, 'does not name an agent of this organization');
    }
    columns.ownerId = body.ownerId;
  }
  if (body.preferredCity !== undefined) columns.preferredCity = blankToNull(body.preferredCity);
  if (body.preferredLanguage !== undefined) columns.preferredLanguage = body.preferredLanguage;
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

/**
 * Inserts a contact from the column values of a create body (`columnsOf`), inside the caller's
 * transaction, after the duplicate check; records `contact.created` in the same transaction.
 */
export async function insertColumns(
  tx: Tx,
  organizationId: string,
  organization: OrganizationDefaults,
  columns: Partial<store.NewContact>,
  defaults: { source: ContactSource },
  actor: Actor,
): Promise<Contact> {
  const match = { phone: columns.phone ?? null, emailKey: columns.emailKey ?? null };
  await checkUnique(tx, organizationId, match, null);
  const person = {
    firstName: columns.firstName as string,
    lastName: columns.lastName ?? '',
    email: columns.email ?? null,
    phone: columns.phone ?? null,
  };
  const code = await nextCode(tx, organizationId, 'contact', 'CT');
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
    currency: currencyFor(columns.budget, columns.currency, columns.currency !== undefined, organization),
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
  if (contact.optedOut) await recordOptOutConsent(tx, organizationId, contact, actor);
  return contact;
}

/** The `optedOut` field written is a MESSAGING consent too (source OPT_OUT): the history shows it. */
async function recordOptOutConsent(tx: Tx, organizationId: string, contact: Contact, actor: Actor) {
  const status = contact.optedOut ? 'REVOKED' : 'GRANTED';
  const consent = { channel: 'MESSAGING', status, source: CONSENT_SOURCES.optOut } as const;
  await recordConsent(tx, organizationId, contact.id, consent, actor);
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
  return insertColumns(tx, organizationId, organization, columns, defaults, actor);
}

/**
 * Creates a contact of the caller's organization, recorded as the caller's: 409 DUPLICATE when its
 * phone or email is taken. Without `source`, API; the back office's rule differs: its contacts did
 * not come through the API, so they default to OTHER.
 */
export async function createContact(db: Database, caller: Caller, body: CreateContactBody): Promise<Contact> {
  const organizationId = caller.organization.id;
  const source: ContactSource = caller.credential === 'operator' ? 'OTHER' : 'API';
  return writeAs(db, caller, (tx, organization) =>
    insertNew(tx, organizationId, organization, body, { source }, actorOf(caller)),
  );
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Applies the column values of a body (`columnsOf`) to `current`, inside the caller's transaction:
 * only values that differ are written, after the duplicate check, and `contact.updated` names them.
 * Nothing differs: nothing is written or recorded (`changes` is empty). Fills `claim` before the
 * statement, for `mappingDuplicates`.
 */
export async function changeColumns(
  tx: Tx,
  organizationId: string,
  current: ContactRow,
  columns: Partial<store.NewContact>,
  defaults: OrganizationDefaults,
  actor: Actor,
  claim: UniqueClaim,
): Promise<{ contact: Contact; changes: string[] }> {
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
  // A write that changes nothing writes nothing and tells no one.
  if (changed.length === 0) return { contact: toContact(current), changes: [] };

  if (changes.email !== undefined) changes.emailKey = columns.emailKey ?? null;
  Object.assign(claim, {
    phone: changes.phone ?? null,
    emailKey:
      changes.emailKey !== undefined && changes.emailKey !== current.emailKey ? changes.emailKey : null,
    exceptId: current.id,
  });
  await checkUnique(tx, organizationId, claim, current.id);
  const person = {
    firstName: changes.firstName ?? current.firstName,
    lastName: changes.lastName ?? current.lastName,
    email: changes.email !== undefined ? changes.email : current.email,
    phone: changes.phone !== undefined ? changes.phone : current.phone,
  };
  changes.searchText = searchText(person);
  const row = await store.updateContact(tx, organizationId, current.id, changes);
  if (!row) throw Errors.notFound('Contact', current.id);
  const contact = toContact(row);
  await recordEvent(tx, { type: ContactUpdated.type, data: { contact, changes: changed }, actor });
  if (changed.includes('optedOut')) await recordOptOutConsent(tx, organizationId, contact, actor);
  return { contact, changes: changed };
}

/**
 * Changes some fields of a contact, recorded as the caller's: null clears a nullable field; a new
 * phone or email is checked for duplicates; `contact.updated` names the fields that really changed,
 * and a request that changes nothing records no event.
 */
export async function updateContact(
  db: Database,
  caller: Caller,
  contactId: string,
  body: UpdateContactBody,
): Promise<Contact> {
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  const claim: UniqueClaim = { phone: null, emailKey: null, exceptId: contactId };
  return mappingDuplicates(db, caller, claim, () =>
    writeAs(db, caller, async (tx, organization) => {
      const current = await loadContact(tx, organizationId, contactId);
      const columns = await columnsOf(tx, organizationId, organization, body);
      return (await changeColumns(tx, organizationId, current, columns, organization, actor, claim)).contact;
    }),
  );
}

/**
 * Locks a contact for a change that removes it (an erasure, or the source of a merge): another
 * organization's or a missing one is a 404.
 */
export async function lockContact(tx: Tx, organizationId: string, contactId: string): Promise<ContactRow> {
  const row = isId(contactId, 'ct') ? await store.lockContactById(tx, organizationId, contactId) : null;
  if (!row) throw Errors.notFound('Contact', contactId);
  return row;
}

/**
 * Removes a contact row in the caller's transaction, after its records in other features were
 * handed over (privacy: erasure, merge); what is left cascades (leads, visit requests, finder
 * searches, notes, consents, conversations and messages, usage). Records `contact.deleted`, a
 * tombstone without personal data.
 */
export async function removeContactInTx(
  tx: Tx,
  organizationId: string,
  contactId: string,
  actor: Actor,
): Promise<void> {
  const row = await store.deleteContact(tx, organizationId, contactId);
  if (!row) throw Errors.notFound('Contact', contactId);
  await recordEvent(tx, { type: ContactDeleted.type, data: { contact: tombstoneOf(row.id) }, actor });
}
