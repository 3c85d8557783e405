import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ContactResponseSchema } from '../contacts/index.ts';
import {
  ContactErasureResponseSchema,
  MergeContactBodySchema,
  ContactExportResponseSchema,
  PrivacyContactParamsSchema,
  PrivacyOrgContactParamsSchema,
} from './privacy.schema.ts';
import * as privacy from './privacy.service.ts';

const TAGS = ['Contacts'];

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

/** Erasure and access: `DELETE /v1/contacts/{id}`, `GET /v1/contacts/{id}/export`, and the back office's delete. */
export const privacyRoutes: FeaturePlugin = async (app, { db, secrets }) => {
  app.delete(
    '/v1/contacts/:id',
    {
      config: { auth: { scope: 'contacts:write', keyTypes: ['secret'], write: true, accessLevel: 3 } },
      schema: {
        operationId: 'contacts.erase',
        summary: 'Erase a contact',
        description: `Secret key with \`contacts:write\`, access level 3. ${ERASURE} 404 for a contact of another organization.`,
        tags: TAGS,
        params: PrivacyContactParamsSchema,
        response: { 200: ContactErasureResponseSchema },
      },
    },
    async (request) => ({
      data: await privacy.eraseContact(db, secrets, callerOf(request), request.params.id),
    }),
  );

  app.get(
    '/v1/contacts/:id/export',
    {
      config: { auth: { scope: 'contacts:read', keyTypes: SECRET_KEYS, write: false } },
      schema: {
        operationId: 'contacts.export',
        summary: 'Export everything held about a contact',
        description:
          'Data-subject access (GDPR art. 15): every record held about the person, by place, as one JSON ' +
          'document read in one transaction. Secret or read-only secret key with `contacts:read`. 404 for a ' +
          'contact of another organization.',
        tags: TAGS,
        params: PrivacyContactParamsSchema,
        response: { 200: ContactExportResponseSchema },
      },
    },
    async (request) => ({ data: await privacy.exportContact(db, callerOf(request), request.params.id) }),
  );

  app.post(
    '/v1/contacts/:id/merge',
    {
      config: { auth: { scope: 'contacts:write', keyTypes: ['secret'], write: true, accessLevel: 3 } },
      schema: {
        operationId: 'contacts.merge',
        summary: 'Merge a duplicate into a contact',
        description: `Secret key with \`contacts:write\`, access level 3. ${MERGE} Send an \`Idempotency-Key\` to retry safely.`,
        tags: TAGS,
        params: PrivacyContactParamsSchema,
        body: MergeContactBodySchema,
        response: { 200: ContactResponseSchema },
      },
    },
    async (request) => ({
      data: await privacy.mergeContacts(
        db,
        callerOf(request),
        request.params.id,
        request.body.sourceContactId,
      ),
    }),
  );

  app.post(
    '/admin/v1/organizations/:orgId/contacts/:contactId/merge',
    {
      config: { admin: true },
      schema: {
        operationId: 'admin.contacts.merge',
        summary: 'Merge a duplicate into a contact',
        description: MERGE,
        tags: ['Admin: contacts'],
        params: PrivacyOrgContactParamsSchema,
        body: MergeContactBodySchema,
        response: { 200: ContactResponseSchema },
      },
    },
    async (request) => ({
      data: await privacy.mergeAdminContacts(
        db,
        request.params.orgId,
        request.params.contactId,
        request.body.sourceContactId,
      ),
    }),
  );

  app.delete(
    '/admin/v1/organizations/:orgId/contacts/:contactId',
    {
      config: { admin: true },
      schema: {
        operationId: 'admin.contacts.delete',
        summary: 'Erase a contact',
        description: ERASURE,
        tags: ['Admin: contacts'],
        params: PrivacyOrgContactParamsSchema,
        response: { 200: ContactErasureResponseSchema },
      },
    },
    async (request) => ({
      data: await privacy.eraseAdminContact(db, secrets, request.params.orgId, request.params.contactId),
    }),
  );
};
