import type { Database } from '../../db/database.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { isId } from '../../platform/ids/ids.ts';
import { inTenantOrganization } from '../../platform/tenancy/tenant-organization.ts';
import { eraseContactInTx, type Erasure } from './privacy.erase.ts';
import { exportContactInTx, type ContactExport } from './privacy.export.ts';
import { mergeContactsInTx } from './privacy.merge.ts';
import type { Contact } from '../contacts/index.ts';

/** Back-office erasures are recorded with a SYSTEM actor (the operator). */
const OPERATOR: Actor = { kind: 'SYSTEM', userId: null };

/** DELETE /v1/contacts/{id}: erases the person, in one transaction. */
export async function eraseContact(
  db: Database,
  secrets: SecretBox,
  caller: Caller,
  contactId: string,
): Promise<Erasure> {
  const organizationId = caller.organization.id;
  return db.tenantTx(organizationId, (tx) =>
    eraseContactInTx(tx, secrets, organizationId, contactId, actorOf(caller)),
  );
}

/** The back office's contact deletion: the same erasure. */
export async function eraseAdminContact(
  db: Database,
  secrets: SecretBox,
  organizationId: string,
  contactId: string,
): Promise<Erasure> {
  if (!isId(organizationId, 'org')) throw Errors.notFound('Organization', organizationId);
  return inTenantOrganization(db, organizationId, (tx) =>
    eraseContactInTx(tx, secrets, organizationId, contactId, OPERATOR),
  );
}

/** GET /v1/contacts/{id}/export: every record held about the person, one consistent snapshot. */
export async function exportContact(db: Database, caller: Caller, contactId: string): Promise<ContactExport> {
  const organizationId = caller.organization.id;
  return db.tenantTx(organizationId, (tx) => exportContactInTx(tx, organizationId, contactId));
}

/** POST /v1/contacts/{id}/merge: the source's records move to the contact, the source goes; one transaction. */
export async function mergeContacts(
  db: Database,
  caller: Caller,
  targetId: string,
  sourceId: string,
): Promise<Contact> {
  const organizationId = caller.organization.id;
  return db.tenantTx(organizationId, (tx) =>
    mergeContactsInTx(tx, organizationId, targetId, sourceId, actorOf(caller)),
  );
}

/** The back office's merge: the same rules, as the operator. */
export async function mergeAdminContacts(
  db: Database,
  organizationId: string,
  targetId: string,
  sourceId: string,
): Promise<Contact> {
  if (!isId(organizationId, 'org')) throw Errors.notFound('Organization', organizationId);
  return inTenantOrganization(db, organizationId, (tx) =>
    mergeContactsInTx(tx, organizationId, targetId, sourceId, OPERATOR),
  );
}
