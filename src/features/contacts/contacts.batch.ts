// POST /v1/contacts/batch: many contacts created or updated in one request, each item on its own.
import type { Database, Tx } from '../../db/database.ts';
import { inSavepoint } from '../../db/savepoint.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import {
  eachItem,
  itemErrorOf,
  itemPath,
  validateItem,
  type ItemFailureLog,
} from '../../platform/http/batch.ts';
import {
  ContactBatchItemSchema,
  type Contact,
  type ContactBatchBody,
  type ContactBatchItem,
  type ContactBatchResult,
  type ContactBatchStatus,
} from './contacts.schema.ts';
import * as store from './contacts.store.ts';
import {
  changeColumns,
  columnsOf,
  insertColumns,
  explainDuplicate,
  isDuplicateViolation,
  type UniqueClaim,
} from './contacts.write.ts';

/**
 * One item, inside its own savepoint: the create body's fields checked as POST /v1/contacts checks
 * them, then the contact it names (externalId, else phone, else email) changed like a PATCH with the
 * fields sent, or a new one created. Each write records its event in this transaction.
 */
async function writeItem(
  tx: Tx,
  caller: Caller,
  item: ContactBatchItem,
  path: string,
  claim: UniqueClaim,
): Promise<{ status: Exclude<ContactBatchStatus, 'error'>; contact: Contact }> {
  const { organization } = caller;
  const columns = await columnsOf(tx, organization.id, organization, item, path);
  const externalId = columns.externalId ?? null;
  if (externalId !== null) await store.lockExternalId(tx, organization.id, externalId);
  const current = await store.findContactToMatch(tx, organization.id, {
    externalId,
    phone: columns.phone ?? null,
    emailKey: columns.emailKey ?? null,
  });
  const actor = actorOf(caller);
  if (!current) {
    const contact = await insertColumns(tx, organization.id, organization, columns, { source: 'API' }, actor);
    return { status: 'created', contact };
  }
  const { contact, changes } = await changeColumns(
    tx,
    organization.id,
    current,
    columns,
    organization,
    actor,
    claim,
  );
  return { status: changes.length > 0 ? 'updated' : 'unchanged', contact };
}

/**
 * Creates or updates up to 100 contacts (POST /v1/contacts/batch), in order, in one transaction with
 * a savepoint per item, each with its own event: a valid item is committed whatever the others do, a failed one
 * (schema, phone, owner, duplicate) writes nothing and reports the error POST /v1/contacts would
 * answer. A later item sees what the earlier ones wrote: one that names the contact an earlier item
 * created updates it. Unexpected failures of an item are logged to `log`.
 */
export async function writeContactBatch(
  db: Database,
  caller: Caller,
  body: ContactBatchBody,
  log?: ItemFailureLog,
): Promise<ContactBatchResult> {
  const organizationId = caller.organization.id;
  // One transaction, one savepoint per item: a failed item rolls back alone, and the batch pays one
  // commit instead of one per item (decision 0181).
  const outcomes = await writeAs(db, caller, (tx) =>
    eachItem(
      body.contacts,
      async (raw, index) => {
        const item = validateItem(ContactBatchItemSchema, raw, { field: 'contacts', index });
        const claim: UniqueClaim = { phone: null, emailKey: null, exceptId: null };
        try {
          return await inSavepoint(tx, () => writeItem(tx, caller, item, itemPath('contacts', index), claim));
        } catch (error) {
          if (isDuplicateViolation(error)) await explainDuplicate(tx, organizationId, claim);
          throw error;
        }
      },
      log,
    ),
  );
  const summary = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  const results = outcomes.map((outcome) => {
    if (outcome.error) {
      summary.failed += 1;
      return { index: outcome.index, status: 'error' as const, id: null, error: itemErrorOf(outcome.error) };
    }
    const { status, contact } = outcome.value;
    summary[status] += 1;
    return { index: outcome.index, status, id: contact.id, error: null };
  });
  return { results, summary };
}
