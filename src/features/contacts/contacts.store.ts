import { and, asc, desc, eq, getTableColumns, gte, inArray, lt, ne, sql, type SQL } from 'drizzle-orm';
import { countOf, totalOf, type Tx } from '../../db/database.ts';
import {
  keysetConditions,
  keysetOrder,
  keysetPosition,
  keysetShape,
  type Keyed,
  type Keyset,
} from '../../db/keyset.ts';
import { inline, StatementCache, type Bind } from '../../db/statements.ts';
import { contacts, type ContactRow } from '../../db/schema.ts';
import { fold, likeLiteral } from '../../platform/text/fold.ts';
import type { ContactSort } from './contacts.schema.ts';

export type NewContact = typeof contacts.$inferInsert;

export async function findContactById(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<ContactRow | null> {
  const rows = await tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.organizationId, organizationId), eq(contacts.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * The contact with this E.164 phone or, failing that, this lowercased email; locked for the rest of
 * the transaction so two forms of one person upsert in turn.
 */
export async function findContactForUpsert(
  tx: Tx,
  organizationId: string,
  match: { phone: string | null; emailKey: string | null },
): Promise<{ byPhone: ContactRow | null; byEmail: ContactRow | null }> {
  const byPhone = match.phone
    ? ((
        await tx
          .select()
          .from(contacts)
          .where(and(eq(contacts.organizationId, organizationId), eq(contacts.phone, match.phone)))
          .limit(1)
          .for('update')
      )[0] ?? null)
    : null;
  const byEmail =
    match.emailKey && byPhone?.emailKey !== match.emailKey
      ? ((
          await tx
            .select()
            .from(contacts)
            .where(and(eq(contacts.organizationId, organizationId), eq(contacts.emailKey, match.emailKey)))
            .limit(1)
            .for('update')
        )[0] ?? null)
      : null;
  return { byPhone, byEmail };
}

/**
 * The contact a batch item names, locked for the rest of the transaction: the oldest with this
 * external id (it is not unique), else the one with this E.164 phone, else the one with this
 * lowercased email. One statement: each branch is one index probe, the best rank wins.
 */
export async function findContactToMatch(
  tx: Tx,
  organizationId: string,
  keys: { externalId: string | null; phone: string | null; emailKey: string | null },
): Promise<ContactRow | null> {
  const branches: SQL[] = [];
  if (keys.externalId !== null)
    branches.push(
      sql`(SELECT id, 1 AS rank FROM contacts WHERE organization_id = ${organizationId} AND external_id = ${keys.externalId} ORDER BY created_at, id LIMIT 1)`,
    );
  if (keys.phone !== null)
    branches.push(
      sql`SELECT id, 2 AS rank FROM contacts WHERE organization_id = ${organizationId} AND phone = ${keys.phone}`,
    );
  if (keys.emailKey !== null)
    branches.push(
      sql`SELECT id, 3 AS rank FROM contacts WHERE organization_id = ${organizationId} AND email_key = ${keys.emailKey}`,
    );
  if (branches.length === 0) return null;
  const best = sql`(SELECT id FROM (${sql.join(branches, sql` UNION ALL `)}) AS candidate ORDER BY rank LIMIT 1)`;
  const rows = await tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.organizationId, organizationId), eq(contacts.id, best)))
    .for('update');
  return rows[0] ?? null;
}

/**
 * Makes writes that name this external id in the organization take turns until the transaction ends
 * (an advisory lock): `external_id` has no unique index, so two batches creating the same new person
 * at once would otherwise both find no one and create two contacts.
 */
export async function lockExternalId(tx: Tx, organizationId: string, externalId: string): Promise<void> {
  const name = `contacts.external_id:${organizationId}:${externalId}`;
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`);
}

/** Inserts a contact; null when its phone or email was taken meanwhile (a parallel form of the same person). */
export async function insertContactUnlessTaken(tx: Tx, row: NewContact): Promise<ContactRow | null> {
  const rows = await tx.insert(contacts).values(row).onConflictDoNothing().returning();
  return rows[0] ?? null;
}

export async function updateContact(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Partial<NewContact>,
): Promise<ContactRow | null> {
  const rows = await tx
    .update(contacts)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(contacts.organizationId, organizationId), eq(contacts.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function deleteContact(tx: Tx, organizationId: string, id: string): Promise<ContactRow | null> {
  const rows = await tx
    .delete(contacts)
    .where(and(eq(contacts.organizationId, organizationId), eq(contacts.id, id)))
    .returning();
  return rows[0] ?? null;
}

/** The contact's row, locked until the transaction ends (a removal or a merge). */
export async function lockContactById(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<ContactRow | null> {
  const rows = await tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.organizationId, organizationId), eq(contacts.id, id)))
    .limit(1)
    .for('update');
  return rows[0] ?? null;
}

/** The contacts other than `exceptId` that hold this E.164 phone or this lowercased email. */
export async function findContactHolders(
  tx: Tx,
  organizationId: string,
  match: { phone: string | null; emailKey: string | null },
  exceptId: string | null = null,
): Promise<{ byPhone: ContactRow | null; byEmail: ContactRow | null }> {
  const holder = async (condition: SQL) =>
    (
      await tx
        .select()
        .from(contacts)
        .where(
          and(
            eq(contacts.organizationId, organizationId),
            condition,
            exceptId === null ? undefined : ne(contacts.id, exceptId),
          ),
        )
        .limit(1)
    )[0] ?? null;
  return {
    byPhone: match.phone ? await holder(eq(contacts.phone, match.phone)) : null,
    byEmail: match.emailKey ? await holder(eq(contacts.emailKey, match.emailKey)) : null,
  };
}

export interface ContactFilter {
  /** Folded fragments that must all occur in `search_text` (trigram index). */
  searchWords?: string[];
  status?: ContactRow['status'];
  source?: ContactRow['source'];
  type?: ContactRow['type'];
  tag?: string;
  ownerId?: string;
  /** Inclusive. */
  createdFrom?: Date;
  /** Exclusive. */
  createdBefore?: Date;
  optedOut?: boolean;
  externalId?: string;
}

// Accented Latin letters and their plain lowercase forms: names sort as a reader expects
// (Álvarez before Blanco) whatever the database's collation, and the same on PGlite and PostgreSQL.
const ACCENTED = 'ÀÁÂÃÄÅĀĂĄÇĆČĎÈÉÊËĒĖĘĚÌÍÎÏĪĮÑŃŇÒÓÔÕÖŌŐŔŘŚŠŞŤÙÚÛÜŪŮŰŲÝŸŹŻŽ';
const ACCENTS_FROM = ACCENTED + ACCENTED.toLowerCase();
const ACCENTS_TO = [...ACCENTS_FROM].map(fold).join('');
const nameKey = (column: typeof contacts.lastName | typeof contacts.firstName) =>
  sql`lower(translate(${column}, ${ACCENTS_FROM}, ${ACCENTS_TO})) COLLATE "C"`;

function orderOf(sort: { by: ContactSort; order: 'asc' | 'desc' }): SQL[] {
  const dir = sort.order === 'asc' ? asc : desc;
  // The id breaks ties in the same direction, so pages never overlap or skip a row.
  switch (sort.by) {
    case 'createdAt':
      return [dir(contacts.createdAt), dir(contacts.id)];
    case 'updatedAt':
      return [dir(contacts.updatedAt), dir(contacts.id)];
    case 'score':
      return [dir(contacts.score), dir(contacts.createdAt), dir(contacts.id)];
    case 'lastName':
      return [dir(nameKey(contacts.lastName)), dir(nameKey(contacts.firstName)), dir(contacts.id)];
  }
}

/** Every value is bound (`bind`): the statement's text depends only on `contactsShape`'s key. */
function contactConditions(organizationId: string, filter: ContactFilter, bind: Bind): SQL | undefined {
  const conditions: (SQL | undefined)[] = [eq(contacts.organizationId, bind(organizationId))];
  for (const word of filter.searchWords ?? []) {
    conditions.push(sql`${contacts.searchText} LIKE ${bind(`%${likeLiteral(word)}%`)}`);
  }
  if (filter.status !== undefined) conditions.push(eq(contacts.status, bind(filter.status)));
  if (filter.source !== undefined) conditions.push(eq(contacts.source, bind(filter.source)));
  if (filter.type !== undefined) conditions.push(eq(contacts.type, bind(filter.type)));
  // `@>` so the GIN index on tags serves it.
  if (filter.tag !== undefined) conditions.push(sql`${contacts.tags} @> ARRAY[${bind(filter.tag)}]::text[]`);
  if (filter.ownerId !== undefined) conditions.push(eq(contacts.ownerId, bind(filter.ownerId)));
  if (filter.createdFrom !== undefined) conditions.push(gte(contacts.createdAt, bind(filter.createdFrom)));
  if (filter.createdBefore !== undefined) conditions.push(lt(contacts.createdAt, bind(filter.createdBefore)));
  if (filter.optedOut !== undefined) conditions.push(eq(contacts.optedOut, bind(filter.optedOut)));
  if (filter.externalId !== undefined) conditions.push(eq(contacts.externalId, bind(filter.externalId)));
  return and(...conditions);
}

/** What changes the list's text: the sort, which filters are present and how many search words. */
function contactsShape(filter: ContactFilter, sort: { by: ContactSort; order: 'asc' | 'desc' }): string {
  const present = Object.entries(filter)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => (Array.isArray(value) ? `${name}:${value.length}` : name))
    .sort();
  return `${sort.by} ${sort.order} ${present.join(',')}`;
}

const listStatements = new StatementCache();

export async function listContacts(
  tx: Tx,
  organizationId: string,
  filter: ContactFilter,
  sort: { by: ContactSort; order: 'asc' | 'desc' },
  page: { limit: number; offset: number },
): Promise<{ items: ContactRow[]; total: number }> {
  const order = orderOf(sort);
  let where: SQL | undefined;
  const rows = await listStatements.select(tx, contactsShape(filter, sort), (bind) => {
    where = contactConditions(organizationId, filter, bind);
    const [limit, offset] = [bind(page.limit), bind(page.offset)];
    // In creation order the page's ids come from contacts_organization_id_created_at_idx alone (it
    // holds search_text: `q` is checked on the index entries), and only the page's rows are read from
    // the table; the other orders need table columns, so they read the matches directly.
    const pageWhere =
      sort.by === 'createdAt'
        ? and(
            eq(contacts.organizationId, bind(organizationId)),
            inArray(
              contacts.id,
              tx
                .select({ id: contacts.id })
                .from(contacts)
                .where(where)
                .orderBy(...order)
                .limit(limit)
                .offset(offset),
            ),
          )
        : where;
    // The count rides along as an uncorrelated subquery (computed once): one statement, one round trip.
    const query = tx
      .select({ contact: getTableColumns(contacts), total: countOf(contacts, where) })
      .from(contacts)
      .where(pageWhere)
      .orderBy(...order);
    return sort.by === 'createdAt' ? query : query.limit(limit).offset(offset);
  });
  // An empty page past the first counts on its own (rare): built again, with the values inline.
  if (rows.length === 0 && page.offset > 0) where = contactConditions(organizationId, filter, inline);
  return { items: rows.map((row) => row.contact), total: await totalOf(tx, rows, page, contacts, where) };
}

/**
 * A cursor page: the contacts matching `filter` after the keyset's position, oldest change first,
 * from contacts_organization_id_updated_at_idx (filters are checked on the rows the range yields).
 */
export async function listContactsByUpdatedAt(
  tx: Tx,
  organizationId: string,
  filter: ContactFilter,
  keyset: Keyset,
): Promise<Keyed<ContactRow>[]> {
  const shape = `${keysetShape(keyset)} ${contactsShape(filter, { by: 'updatedAt', order: 'asc' })}`;
  const rows = await listStatements.select(tx, shape, (bind) =>
    tx
      .select({ contact: getTableColumns(contacts), position: keysetPosition(contacts.updatedAt) })
      .from(contacts)
      .where(
        and(contactConditions(organizationId, filter, bind), ...keysetConditions(contacts, keyset, bind)),
      )
      .orderBy(...keysetOrder(contacts))
      .limit(bind(keyset.limit)),
  );
  return rows.map(({ contact, position }) => ({
    row: contact,
    key: { updatedAt: position, id: contact.id },
  }));
}
