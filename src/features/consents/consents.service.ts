import type { Database, Tx } from '../../db/database.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { isId } from '../../platform/ids/ids.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import {
  findContactInTx,
  readContactConsents,
  recordConsent,
  type ConsentChannel,
  type ContactConsents,
} from '../contacts/index.ts';
import type { PutConsentBody } from './consents.schema.ts';

/** The contact, or the 404 every id of another organization gets. */
async function requireContact(tx: Tx, organizationId: string, id: string) {
  const contact = isId(id, 'ct') ? await findContactInTx(tx, organizationId, id) : null;
  if (!contact) throw Errors.notFound('Contact', id);
  return contact;
}

/**
 * States a contact's consent on one channel (PUT /v1/contacts/{id}/consents/{channel}): a history
 * row every time, `contact.consent_changed` when the status changes, MESSAGING kept in step with
 * `optedOut`; answers the contact's consents after the write.
 */
export async function setContactConsent(
  db: Database,
  caller: Caller,
  contactId: string,
  channel: ConsentChannel,
  body: PutConsentBody,
): Promise<ContactConsents> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    await requireContact(tx, organizationId, contactId);
    const consent = { channel, status: body.status, source: body.source.trim() };
    await recordConsent(tx, organizationId, contactId, consent, actorOf(caller));
    return readContactConsents(tx, organizationId, contactId);
  });
}

/** A contact's current consent per channel and its history, newest first. */
export async function getContactConsents(
  db: Database,
  caller: Caller,
  contactId: string,
): Promise<ContactConsents> {
  const organizationId = caller.organization.id;
  return readAs(db, caller, async (tx) => {
    await requireContact(tx, organizationId, contactId);
    return readContactConsents(tx, organizationId, contactId);
  });
}
