import { sql, type SQL } from 'drizzle-orm';
import type { Database, Tx } from '../../db/database.ts';
import { parseDateOrDateTime } from '../../platform/http/dates.ts';
import type { ContactRow } from '../../db/schema.ts';
import { type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { jsonTimestampSql } from '../../platform/events/record.ts';
import { listPage, listRequest, type ListMeta } from '../../platform/http/pagination.ts';
import { isId } from '../../platform/ids/ids.ts';
import { fold } from '../../platform/text/fold.ts';
import { readAs } from '../../platform/tenancy/caller-tx.ts';
import { type Contact, type ListContactsQuery } from './contacts.schema.ts';
import { updateContactScore } from './contacts.score.ts';
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
    source: row.source,
    status: row.status,
    type: row.type,
    score: row.score,
    ownerId: row.ownerId,
    preferredCity: row.preferredCity,
    preferredLanguage: row.preferredLanguage,
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
 * `toContact` in SQL: the jsonb payload of the `contacts` row `row` (a table alias or CTE name), for a
 * statement that records events about the rows it writes (decision 0226). `overrides` show a column as
 * the payload must (the score before the same statement's recomputation). Keep it in step with
 * `toContact`: test/features/contacts/contact-json.test.ts compares the two on the same rows.
 */
export function contactJsonSql(row: string, overrides: { score?: SQL; optedOut?: SQL } = {}): SQL {
  const column = (name: string) => sql.raw(`${row}.${name}`);
  return sql`jsonb_build_object(
    'id', ${column('id')}, 'code', ${column('code')},
    'firstName', ${column('first_name')}, 'lastName', ${column('last_name')},
    'fullName', concat_ws(' ', nullif(${column('first_name')}, ''), nullif(${column('last_name')}, '')),
    'email', ${column('email')}, 'phone', ${column('phone')}, 'source', ${column('source')},
    'status', ${column('status')}, 'type', ${column('type')}, 'score', ${overrides.score ?? column('score')},
    'ownerId', ${column('owner_id')}, 'preferredCity', ${column('preferred_city')},
    'preferredLanguage', ${column('preferred_language')}, 'preferredType', ${column('preferred_type')}, 'budget', ${column('budget')}::float8,
    'currency', ${column('currency')}, 'tags', to_jsonb(${column('tags')}),
    'optedOut', ${overrides.optedOut ?? column('opted_out')}, 'externalId', ${column('external_id')},
    'createdAt', ${jsonTimestampSql(column('created_at'))}, 'updatedAt', ${jsonTimestampSql(column('updated_at'))})`;
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

/** The `search_text` of a contact (what `q` matches); the benchmark generator fills it with this too. */
export function searchText(row: Pick<ContactRow, 'firstName' | 'lastName' | 'email' | 'phone'>): string {
  return fold([row.firstName, row.lastName, row.email ?? '', row.phone ?? ''].join(' '));
}

// ---------------------------------------------------------------------------------------------
// The contacts API (v1, secret keys) and the back office: list, read, create, change, delete.

/** What writes fall back on: the organization's phone country and currency. */
export interface OrganizationDefaults {
  defaultCountry: string;
  defaultCurrency: string;
}

export async function loadContact(tx: Tx, organizationId: string, contactId: string): Promise<ContactRow> {
  const row = isId(contactId, 'ct') ? await store.findContactById(tx, organizationId, contactId) : null;
  // Another organization's contact is as missing as one that never existed.
  if (!row) throw Errors.notFound('Contact', contactId);
  return row;
}

function instantOf(value: string | undefined, field: string): Date | undefined {
  return value === undefined ? undefined : parseDateOrDateTime(value, field);
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

async function listIn(
  tx: Tx,
  organizationId: string,
  query: ListContactsQuery,
): Promise<{ data: Contact[]; meta: ListMeta }> {
  const by = query.sortBy ?? 'createdAt';
  const sort = { by, order: query.sortOrder ?? (by === 'lastName' ? 'asc' : 'desc') } as const;
  const filter: store.ContactFilter = {
    searchWords: searchWords(query.q),
    status: query.status,
    source: query.source,
    type: query.type,
    tag: query.tag,
    ownerId: query.ownerId,
    createdFrom: instantOf(query.createdAfter, 'query.createdAfter'),
    createdBefore: instantOf(query.createdBefore, 'query.createdBefore'),
    optedOut: query.optedOut,
    externalId: query.externalId,
  };
  const request = listRequest(query, { list: 'contacts', organizationId });
  return listPage(
    request,
    {
      cursor: (keyset) => store.listContactsByUpdatedAt(tx, organizationId, filter, keyset),
      page: (page) => store.listContacts(tx, organizationId, filter, sort, page),
    },
    toContact,
  );
}

/**
 * Contacts of the caller's organization, filtered, sorted and paged, or a cursor page (GET /v1/contacts,
 * the back office's list, MCP's search_contacts).
 */
export async function listContacts(db: Database, caller: Caller, query: ListContactsQuery) {
  return readAs(db, caller, (tx) => listIn(tx, caller.organization.id, query));
}

/** One contact of the caller's organization; 404 outside it. */
export async function getContact(db: Database, caller: Caller, contactId: string): Promise<Contact> {
  const organizationId = caller.organization.id;
  return readAs(db, caller, async (tx) => toContact(await loadContact(tx, organizationId, contactId)));
}
