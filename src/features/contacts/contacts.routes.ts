import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { CURSOR_MODE_DESCRIPTION } from '../../platform/http/pagination.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import {
  ContactBatchBodySchema,
  ContactBatchResponseSchema,
  ContactIdParamsSchema,
  CONTACTS_PER_WRITE_POINT,
  ContactListResponseSchema,
  ContactResponseSchema,
  CreateContactBodySchema,
  ListContactsQuerySchema,
  MAX_CONTACT_BATCH,
  OrgContactParamsSchema,
  UpdateContactBodySchema,
} from './contacts.schema.ts';
import * as batch from './contacts.batch.ts';
import * as contacts from './contacts.service.ts';
import * as write from './contacts.write.ts';

const READ = { auth: { scope: 'contacts:read', keyTypes: SECRET_KEYS, write: false } } as const;
// Creating and changing people is support-approved (SPEC.md: contacts:write, access level 3).
const WRITE = {
  auth: { scope: 'contacts:write', keyTypes: ['secret'], write: true, accessLevel: 3 },
} as const;
/** A batch counts once against `key`, and one write per 10 items against the write limits (decision 0183). */
const BATCH_WRITE = {
  auth: { ...WRITE.auth, batch: { items: 'contacts', itemsPerWritePoint: CONTACTS_PER_WRITE_POINT } },
} as const;
const ADMIN = { admin: true } as const;
const TAGS = ['Contacts'];
const ADMIN_TAGS = ['Admin: contacts'];
/** A phone or email another contact of the organization already has. */
const DUPLICATE = { 409: ref(ErrorResponseSchema) };

const LIST_DESCRIPTION =
  'Every filter is optional and they combine with AND. `q` matches case- and accent-insensitive substrings of ' +
  'name, email and phone (a phone-like `q` matches the digits of the E.164 number: `612 345` finds +34612345678). ' +
  '`createdAfter` is inclusive, `createdBefore` strict; a date means its start in UTC. ' +
  'Sorted by createdAt (newest first) unless `sortBy` says otherwise. ' +
  CURSOR_MODE_DESCRIPTION;
const CREATE_DESCRIPTION =
  "The phone is stored in E.164 (read in the organization's default country without `+`). " +
  '409 DUPLICATE when another contact has the same phone (in any format) or email (in any case): ' +
  '`error.existingId` names it. Records `contact.created`.';
const UPDATE_DESCRIPTION =
  'Only the fields sent change; null clears a nullable field; `tags` replaces the list. A new phone or email ' +
  'is checked like on create (409 naming the other contact). Records `contact.updated` with the names of ' +
  'the fields that changed; a request that changes nothing answers 200 and records no event.';

const BATCH_DESCRIPTION =
  `Creates or updates 1-${MAX_CONTACT_BATCH} contacts in one request. Each item is the body of POST /v1/contacts ` +
  '(`ContactBatchItem`) and names a contact of the organization by `externalId` (the oldest holding it), else by ' +
  'phone (any format), else by email (any case): no match creates one (source API by default), a match is changed ' +
  'like a PATCH with the fields sent. Items run in order, each in its own savepoint of one transaction, with its own event ' +
  '(`contact.created`, or `contact.updated` naming the changed fields): a later item sees what an earlier one ' +
  'wrote, so two items naming the same person create it once and then update it. An item that changes nothing ' +
  'is `unchanged` and records no event. An invalid item (schema, phone, owner) or a duplicate phone or email of ' +
  'another contact gets `status: error` with the error POST /v1/contacts would answer, fields named ' +
  '`body.contacts[i].…`; nothing of it is written and the other items still are. The answer is 200 whatever ' +
  'the items did; a body that is not `{contacts: [objects]}` with 1-100 items is a 400. Rate limits: one ' +
  `request against \`key\`, and one write per ${CONTACTS_PER_WRITE_POINT} items (rounded up; 100 items = 10 writes) ` +
  'against `key-writes` and `organization-writes`, all or none (429 when not that many are left). Send an ' +
  '`Idempotency-Key` to retry safely: it covers the whole batch.';

/** Contacts: the v1 API for secret keys and the back office's contact CRUD. */
export const contactsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/v1/contacts',
    {
      config: READ,
      schema: {
        operationId: 'contacts.list',
        summary: 'Search the contacts',
        description: LIST_DESCRIPTION,
        tags: TAGS,
        querystring: ListContactsQuerySchema,
        response: { 200: ContactListResponseSchema },
      },
    },
    async (request) => contacts.listContacts(db, callerOf(request), request.query),
  );

  app.get(
    '/v1/contacts/:id',
    {
      config: READ,
      schema: {
        operationId: 'contacts.get',
        summary: 'One contact',
        description:
          'Secret or read-only secret key with `contacts:read`. The contact with its owner, tags, score ' +
          'and opt-out flag. 404 when the id is malformed, unknown or of another organization (one answer ' +
          'for all three).',
        tags: TAGS,
        params: ContactIdParamsSchema,
        response: { 200: ContactResponseSchema },
      },
    },
    async (request) => ({ data: await contacts.getContact(db, callerOf(request), request.params.id) }),
  );

  app.post(
    '/v1/contacts',
    {
      config: WRITE,
      schema: {
        operationId: 'contacts.create',
        summary: 'Create a contact',
        description: `${CREATE_DESCRIPTION} Source defaults to API. Send an \`Idempotency-Key\` to retry safely.`,
        tags: TAGS,
        body: CreateContactBodySchema,
        response: { 201: ContactResponseSchema, ...DUPLICATE },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await write.createContact(db, callerOf(request), request.body) }),
  );

  app.post(
    '/v1/contacts/batch',
    {
      config: BATCH_WRITE,
      schema: {
        operationId: 'contacts.batch',
        summary: 'Create or update many contacts',
        description: BATCH_DESCRIPTION,
        tags: TAGS,
        body: ContactBatchBodySchema,
        response: { 200: ContactBatchResponseSchema },
      },
    },
    async (request) => ({
      data: await batch.writeContactBatch(db, callerOf(request), request.body, request.log),
    }),
  );

  app.patch(
    '/v1/contacts/:id',
    {
      config: WRITE,
      schema: {
        operationId: 'contacts.update',
        summary: 'Change a contact',
        description: UPDATE_DESCRIPTION,
        tags: TAGS,
        params: ContactIdParamsSchema,
        body: UpdateContactBodySchema,
        response: { 200: ContactResponseSchema, ...DUPLICATE },
      },
    },
    async (request) => ({
      data: await write.updateContact(db, callerOf(request), request.params.id, request.body),
    }),
  );

  app.post(
    '/admin/v1/organizations/:orgId/contacts',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.contacts.create',
        summary: 'Create a contact',
        description: `${CREATE_DESCRIPTION} Source defaults to OTHER.`,
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        body: CreateContactBodySchema,
        response: { 201: ContactResponseSchema, ...DUPLICATE },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await write.createAdminContact(db, request.params.orgId, request.body) }),
  );

  app.get(
    '/admin/v1/organizations/:orgId/contacts',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.contacts.list',
        summary: "Search an organization's contacts",
        description: LIST_DESCRIPTION,
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        querystring: ListContactsQuerySchema,
        response: { 200: ContactListResponseSchema },
      },
    },
    async (request) => contacts.listAdminContacts(db, request.params.orgId, request.query),
  );

  app.get(
    '/admin/v1/organizations/:orgId/contacts/:contactId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.contacts.get',
        summary: 'Get a contact',
        description:
          'Admin bearer token. The contact as GET /v1/contacts/{id} shows it. 404 when the organization is ' +
          'unknown or the contact is not one of its.',
        tags: ADMIN_TAGS,
        params: OrgContactParamsSchema,
        response: { 200: ContactResponseSchema },
      },
    },
    async (request) => ({
      data: await contacts.getAdminContact(db, request.params.orgId, request.params.contactId),
    }),
  );

  app.patch(
    '/admin/v1/organizations/:orgId/contacts/:contactId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.contacts.update',
        summary: 'Change a contact',
        description: UPDATE_DESCRIPTION,
        tags: ADMIN_TAGS,
        params: OrgContactParamsSchema,
        body: UpdateContactBodySchema,
        response: { 200: ContactResponseSchema, ...DUPLICATE },
      },
    },
    async (request) => ({
      data: await write.updateAdminContact(db, request.params.orgId, request.params.contactId, request.body),
    }),
  );
};
