import type { Tx } from '../../db/database.ts';
import type { ContactRow } from '../../db/schema.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { newId } from '../../platform/ids/ids.ts';
import { fold } from '../../platform/text/fold.ts';
import { toE164 } from '../../platform/text/phone.ts';
import { ContactCreated, ContactUpdated } from './contacts.events.ts';
import type { Contact, ContactSource, ContactStatus, ContactType } from './contacts.schema.ts';
import * as store from './contacts.store.ts';

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

function searchText(row: Pick<ContactRow, 'firstName' | 'lastName' | 'email' | 'phone'>): string {
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
