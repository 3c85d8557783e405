// Portal forms' contact upsert, and the contact lookups other features make inside their own transactions.
import type { Tx } from '../../db/database.ts';
import type { ContactRow } from '../../db/schema.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { nextCode } from '../../platform/ids/codes.ts';
import { isId, newId } from '../../platform/ids/ids.ts';

import { CONSENT_SOURCES, recordConsent } from './contacts.consent.ts';
import { ContactCreated, ContactUpdated } from './contacts.events.ts';
import { type Contact, type ContactSource } from './contacts.schema.ts';
import * as store from './contacts.store.ts';
import { searchText, toContact } from './contacts.service.ts';

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
  /** The browser's language (ISO 639-1): kept on a contact who has none yet (emails, issue 41). */
  preferredLanguage?: string | null;
}

/** Which key found an existing contact: the E.164 phone (tried first) or the lowercased email. */
export type ContactMatchKey = 'PHONE' | 'EMAIL';

/**
 * Creates or updates the contact behind a portal form, inside the caller's transaction: matched by
 * E.164 phone, then by email. A new person is created NEW/LEAD; a known one gets the missing
 * details filled in, fresh preferences, the new tags and a new `lastActivityAt`. Records
 * `contact.created` or `contact.updated` in the same transaction. `matchedOn` says which key found
 * the existing contact (null when created).
 */
export async function upsertPortalContact(
  tx: Tx,
  organizationId: string,
  input: PortalContactInput,
  actor: Actor,
): Promise<{ contact: Contact; created: boolean; matchedOn: ContactMatchKey | null }> {
  const emailKey = input.email ? input.email.trim().toLowerCase() : null;
  const match = { phone: input.phone, emailKey };
  let { byPhone, byEmail } = await store.findContactForUpsert(tx, organizationId, match);
  const now = new Date();

  if (!byPhone && !byEmail) {
    const code = await nextCode(tx, organizationId, 'contact', 'CT');
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
      preferredLanguage: input.preferredLanguage ?? null,
      searchText: searchText(fields),
      lastActivityAt: now,
    });
    if (row) {
      const contact = toContact(row);
      await recordEvent(tx, { type: ContactCreated.type, data: { contact }, actor });
      return { contact, created: true, matchedOn: null };
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
  if (!existing.preferredLanguage && input.preferredLanguage)
    set('preferredLanguage', input.preferredLanguage);
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
  // The phone is tried first (byPhone ?? byEmail above): when both match, it is the phone that did.
  return { contact, created: false, matchedOn: byPhone ? 'PHONE' : 'EMAIL' };
}

/** One contact of the organization, inside the caller's transaction; null when unknown or another tenant's. */
export async function findContactInTx(tx: Tx, organizationId: string, id: string): Promise<Contact | null> {
  const row = await store.findContactById(tx, organizationId, id);
  return row ? toContact(row) : null;
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
 * An opt-out keyword (STOP...) from the contact, inside the caller's transaction: a REVOKED
 * MESSAGING consent with source INBOUND_STOP, which sets `optedOut` (and records `contact.updated`
 * with `changes: ["optedOut"]`) unless it already was; a repeated STOP adds history only.
 */
export async function optOutContact(
  tx: Tx,
  organizationId: string,
  contactId: string,
  actor: Actor,
): Promise<void> {
  await recordConsent(
    tx,
    organizationId,
    contactId,
    { channel: 'MESSAGING', status: 'REVOKED', source: CONSENT_SOURCES.inboundStop },
    actor,
  );
}
