// A merge's contact side (issue 21): the target takes what it lacks from the source.
import type { Tx } from '../../db/database.ts';
import type { ContactRow } from '../../db/schema.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { searchText, toContact } from './contacts.service.ts';
import type { Contact } from './contacts.schema.ts';
import * as store from './contacts.store.ts';

const isEmpty = (value: unknown) =>
  value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);

/** The fields a merge fills on the target when the target has none (docs/decisions/0208). */
const FILLED = [
  'lastName',
  'email',
  'phone',
  'ownerId',
  'preferredCity',
  'preferredLanguage',
  'preferredType',
  'externalId',
] as const;

/**
 * Fills the target's empty fields from the source (budget with its currency), joins their tags,
 * keeps an opt-out of either, the later last activity. The source gives up its phone and email
 * first (both are unique in the organization). Returns the target as it is now and the fields that
 * changed; records nothing (the merge records `contact.merged`).
 */
export async function absorbContactFields(
  tx: Tx,
  organizationId: string,
  target: ContactRow,
  source: ContactRow,
): Promise<{ contact: Contact; filled: string[] }> {
  const changes: Partial<store.NewContact> = {};
  for (const field of FILLED)
    if (isEmpty(target[field]) && !isEmpty(source[field]))
      (changes as Record<string, unknown>)[field] = source[field];
  if (changes.email !== undefined) changes.emailKey = source.emailKey;
  if (target.budget === null && source.budget !== null) {
    changes.budget = source.budget;
    changes.currency = source.currency;
  }
  const tags = [...new Set([...target.tags, ...source.tags])];
  if (tags.length > target.tags.length) changes.tags = tags;
  if (source.optedOut && !target.optedOut) changes.optedOut = true;
  if (source.lastActivityAt && (!target.lastActivityAt || source.lastActivityAt > target.lastActivityAt))
    changes.lastActivityAt = source.lastActivityAt;
  const filled = Object.keys(changes)
    .filter((field) => field !== 'emailKey' && field !== 'lastActivityAt')
    .sort();
  if (Object.keys(changes).length === 0) return { contact: toContact(target), filled };

  if (changes.email !== undefined || changes.phone !== undefined)
    await store.updateContact(tx, organizationId, source.id, { email: null, emailKey: null, phone: null });
  changes.searchText = searchText({
    firstName: target.firstName,
    lastName: changes.lastName ?? target.lastName,
    email: changes.email ?? target.email,
    phone: changes.phone ?? target.phone,
  });
  const row = await store.updateContact(tx, organizationId, target.id, changes);
  if (!row) throw Errors.notFound('Contact', target.id);
  return { contact: toContact(row), filled };
}
