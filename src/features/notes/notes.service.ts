import type { Database } from '../../db/database.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { pageMeta, pageRequest } from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import { findContactInTx } from '../contacts/index.ts';
import { NoteCreated } from './notes.events.ts';
import type { CreateNoteBody, Note, NotesQuery } from './notes.schema.ts';
import * as store from './notes.store.ts';

function toNote(row: store.NoteRow): Note {
  return {
    id: row.id,
    contactId: row.contactId,
    body: row.body,
    authorAgentId: row.authorAgentId,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The contact, or the 404 every id of another organization gets. */
async function requireContact(tx: Parameters<typeof findContactInTx>[0], organizationId: string, id: string) {
  const contact = isId(id, 'ct') ? await findContactInTx(tx, organizationId, id) : null;
  if (!contact) throw Errors.notFound('Contact', id);
  return contact;
}

/** Adds a note to a contact and records `note.created`, in one transaction. */
export async function addNote(
  db: Database,
  caller: Caller,
  contactId: string,
  body: CreateNoteBody,
): Promise<Note> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    await requireContact(tx, organizationId, contactId);
    const note = toNote(
      await store.insertNote(tx, {
        id: newId('note'),
        organizationId,
        contactId,
        body: body.body.trim(),
        authorAgentId: caller.agentId,
      }),
    );
    await recordEvent(tx, { type: NoteCreated.type, data: { note }, actor: actorOf(caller) });
    return note;
  });
}

/** A contact's notes, newest first, paged. */
export async function listContactNotes(db: Database, caller: Caller, contactId: string, query: NotesQuery) {
  const organizationId = caller.organization.id;
  const page = pageRequest(query);
  return readAs(db, caller, async (tx) => {
    await requireContact(tx, organizationId, contactId);
    const { rows, total } = await store.listNotes(tx, organizationId, contactId, page);
    return { data: rows.map(toNote), meta: pageMeta(total, page) };
  });
}
