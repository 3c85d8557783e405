import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import type { Database } from '../../db/database.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { adminMount, defineOperation, keyMount, mountOperations } from '../../platform/http/operation.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ContactResponseSchema } from '../contacts/index.ts';
import {
  ContactErasureResponseSchema,
  MergeContactBodySchema,
  ContactExportResponseSchema,
  PrivacyContactParamsSchema,
} from './privacy.schema.ts';
import * as privacy from './privacy.service.ts';

const TAGS = ['Contacts'];
const ADMIN = adminMount(['Admin: contacts']);
const READ = keyMount({ scope: 'contacts:read', keyTypes: SECRET_KEYS, write: false }, TAGS);
const WRITE = keyMount({ scope: 'contacts:write', keyTypes: ['secret'], write: true, accessLevel: 3 }, TAGS);

const ERASURE =
  'Erases the person (GDPR art. 17), in one transaction: the contact with its leads, visit requests, finder ' +
  'searches, notes, consents, conversations, messages and usage go; its deals, tasks and appointments stay ' +
  "without the contact, the person's name, email and phone redacted from their texts (each records its " +
  '`*.updated`); every event naming the person (event log, pending webhook deliveries) and every stored ' +
  'idempotent response is rewritten without their data. Records `contact.deleted`, a tombstone without ' +
  'personal data. docs/privacy.md lists every place.';

const MERGE =
  'In one transaction, every record of the source contact (`sourceContactId`) moves to this one: leads, visit ' +
  'requests, finder searches, notes, consents, messages (one conversation: the later window, blocked if either ' +
  'was), usage (daily totals summed), deals, tasks and appointments (each records its `*.updated`). Empty ' +
  'fields of this contact are filled from the source (tags joined, an opt-out of either kept), the score is ' +
  'computed again, the source is removed (`contact.deleted`) and `contact.merged` is recorded with both ids. ' +
  '404 for an unknown contact; 400 naming `body.sourceContactId` when it is unknown or the same contact.';

/**
 * Erasure, access and merging, each operation declared once: erasure and merge mounted on v1 and in the
 * back office (decision 0241), the export on v1 only.
 */
const operations = (db: Database, secrets: SecretBox) => [
  defineOperation({
    id: 'contacts.erase',
    method: 'DELETE',
    path: '/contacts/:id',
    summary: 'Erase a contact',
    description: `${ERASURE} 404 for a contact of another organization.`,
    params: PrivacyContactParamsSchema,
    response: { 200: ContactErasureResponseSchema },
    mounts: [WRITE, ADMIN],
    handle: async (caller, { params }) => ({
      data: await privacy.eraseContact(db, secrets, caller, params.id),
    }),
  }),
  defineOperation({
    id: 'contacts.export',
    method: 'GET',
    path: '/contacts/:id/export',
    summary: 'Export everything held about a contact',
    description:
      'Data-subject access (GDPR art. 15): every record held about the person, by place, as one JSON ' +
      'document read in one transaction. 404 for a contact of another organization.',
    params: PrivacyContactParamsSchema,
    response: { 200: ContactExportResponseSchema },
    mounts: [READ],
    handle: async (caller, { params }) => ({ data: await privacy.exportContact(db, caller, params.id) }),
  }),
  defineOperation({
    id: 'contacts.merge',
    method: 'POST',
    path: '/contacts/:id/merge',
    summary: 'Merge a duplicate into a contact',
    description: `${MERGE} Send an \`Idempotency-Key\` to retry safely.`,
    params: PrivacyContactParamsSchema,
    body: MergeContactBodySchema,
    response: { 200: ContactResponseSchema },
    mounts: [WRITE, ADMIN],
    handle: async (caller, { params, body }) => ({
      data: await privacy.mergeContacts(db, caller, params.id, body.sourceContactId),
    }),
  }),
];

/** Erasure and access: `DELETE /v1/contacts/{id}`, `GET /v1/contacts/{id}/export`, merges, and the back office's. */
export const privacyRoutes: FeaturePlugin = async (app, { db, secrets }) => {
  mountOperations(app, operations(db, secrets));
};
