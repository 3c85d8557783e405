import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { CURSOR_MODE_DESCRIPTION } from '../../platform/http/pagination.ts';
import { adminMount, defineOperation, keyMount, mountOperations } from '../../platform/http/operation.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
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
  UpdateContactBodySchema,
} from './contacts.schema.ts';
import * as batch from './contacts.batch.ts';
import * as contacts from './contacts.service.ts';
import * as write from './contacts.write.ts';

const ADMIN = adminMount(['Admin: contacts']);
const TAGS = ['Contacts'];
const READ = keyMount({ scope: 'contacts:read', keyTypes: SECRET_KEYS, write: false }, TAGS);
// Creating and changing people is support-approved (SPEC.md: contacts:write, access level 3).
const WRITE_AUTH = { scope: 'contacts:write', keyTypes: ['secret'], write: true, accessLevel: 3 } as const;
const WRITE = keyMount(WRITE_AUTH, TAGS);
/** A batch counts once against `key`, and one write per 10 items against the write limits (decision 0183). */
const BATCH_WRITE = keyMount(
  { ...WRITE_AUTH, batch: { items: 'contacts', itemsPerWritePoint: CONTACTS_PER_WRITE_POINT } },
  TAGS,
);
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
  '`error.existingId` names it. Records `contact.created`. Source defaults to API (OTHER in the back ' +
  'office). Send an `Idempotency-Key` to retry safely.';
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

/**
 * Contacts, each operation declared once and mounted on v1 (contacts:read, contacts:write) and, but the
 * batch, in the back office (decision 0241): one service call with the caller either credential resolves to.
 */
const operations = (db: Database) => [
  defineOperation({
    id: 'contacts.list',
    method: 'GET',
    path: '/contacts',
    summary: 'Search the contacts',
    description: LIST_DESCRIPTION,
    querystring: ListContactsQuerySchema,
    response: { 200: ContactListResponseSchema },
    mounts: [READ, ADMIN],
    handle: (caller, { query }) => contacts.listContacts(db, caller, query),
  }),
  defineOperation({
    id: 'contacts.get',
    method: 'GET',
    path: '/contacts/:id',
    summary: 'One contact',
    description:
      'The contact with its owner, tags, score and opt-out flag. 404 when the id is malformed, unknown or of ' +
      'another organization (one answer for all three).',
    params: ContactIdParamsSchema,
    response: { 200: ContactResponseSchema },
    mounts: [READ, ADMIN],
    handle: async (caller, { params }) => ({ data: await contacts.getContact(db, caller, params.id) }),
  }),
  defineOperation({
    id: 'contacts.create',
    method: 'POST',
    path: '/contacts',
    summary: 'Create a contact',
    description: CREATE_DESCRIPTION,
    body: CreateContactBodySchema,
    response: { 201: ContactResponseSchema, ...DUPLICATE },
    status: 201,
    mounts: [WRITE, ADMIN],
    handle: async (caller, { body }) => ({ data: await write.createContact(db, caller, body) }),
  }),
  defineOperation({
    id: 'contacts.batch',
    method: 'POST',
    path: '/contacts/batch',
    summary: 'Create or update many contacts',
    description: BATCH_DESCRIPTION,
    body: ContactBatchBodySchema,
    response: { 200: ContactBatchResponseSchema },
    mounts: [BATCH_WRITE],
    handle: async (caller, { body, request }) => ({
      data: await batch.writeContactBatch(db, caller, body, request.log),
    }),
  }),
  defineOperation({
    id: 'contacts.update',
    method: 'PATCH',
    path: '/contacts/:id',
    summary: 'Change a contact',
    description: UPDATE_DESCRIPTION,
    params: ContactIdParamsSchema,
    body: UpdateContactBodySchema,
    response: { 200: ContactResponseSchema, ...DUPLICATE },
    mounts: [WRITE, ADMIN],
    handle: async (caller, { params, body }) => ({
      data: await write.updateContact(db, caller, params.id, body),
    }),
  }),
];

/** The contacts routes: every operation on each surface that offers it. */
export const contactsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  mountOperations(app, operations(db));
};
