import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { principalOf } from '../../platform/auth/auth.plugin.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import {
  ContactErasureResponseSchema,
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
      data: await privacy.eraseContact(db, secrets, principalOf(request), request.params.id),
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
    async (request) => ({ data: await privacy.exportContact(db, principalOf(request), request.params.id) }),
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
