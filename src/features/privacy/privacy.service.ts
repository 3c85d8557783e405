import type { Database } from '../../db/database.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import { eraseContactInTx, type Erasure } from './privacy.erase.ts';
import { exportContactInTx, type ContactExport } from './privacy.export.ts';
import { mergeContactsInTx } from './privacy.merge.ts';
import type { Contact } from '../contacts/index.ts';

/** Erases the person (v1 and the back office), in one transaction, recorded as the caller's. */
export async function eraseContact(
  db: Database,
  secrets: SecretBox,
  caller: Caller,
  contactId: string,
): Promise<Erasure> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, (tx) =>
    eraseContactInTx(tx, secrets, organizationId, contactId, actorOf(caller)),
  );
}

/** GET /v1/contacts/{id}/export: every record held about the person, one consistent snapshot. */
export async function exportContact(db: Database, caller: Caller, contactId: string): Promise<ContactExport> {
  const organizationId = caller.organization.id;
  return readAs(db, caller, (tx) => exportContactInTx(tx, organizationId, contactId));
}

/**
 * Merges a duplicate into a contact (v1 and the back office): the source's records move to the
 * contact, the source goes; one transaction, recorded as the caller's.
 */
export async function mergeContacts(
  db: Database,
  caller: Caller,
  targetId: string,
  sourceId: string,
): Promise<Contact> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, (tx) =>
    mergeContactsInTx(tx, organizationId, targetId, sourceId, actorOf(caller)),
  );
}
