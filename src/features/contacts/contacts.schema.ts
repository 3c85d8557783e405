import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { BatchBody, BatchItemErrorSchema } from '../../platform/http/batch.ts';
import { DateOrDateTime } from '../../platform/http/dates.ts';
import { ListOf, pageQuery, syncQuery } from '../../platform/http/pagination.ts';
import {
  Amount,
  DataOf,
  DateTime,
  PhoneText,
  ref,
  StringEnum,
  Nullable,
  NotBlank,
} from '../../platform/http/schemas.ts';
import { PROPERTY_TYPES } from '../properties/index.ts';
import { CONTACT_SOURCES, CONTACT_STATUSES, CONTACT_TYPES } from '../../db/schema.ts';
import { LANGUAGE_PATTERN } from '../../platform/http/languages.ts';

/**
 * What a visitor types about themselves into a portal form (lead, visit, booking, finder): SPEC.md
 * "Lead" limits, plus sane maxima for the rest. The phone is read in the agency's default country.
 */
export const PortalPersonFields = {
  firstName: Type.String({ minLength: 2, maxLength: 100 }),
  lastName: Type.Optional(Type.String({ maxLength: 100 })),
  phone: PhoneText({
    minLength: 7,
    maxLength: 20,
    description:
      "International (+34612345678) or national in the agency's default country; validated as a phone number of that country",
  }),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
};

// The value sets of stored columns live beside their table, which is typed with them (decision 0248).
export {
  CONTACT_SOURCES,
  CONTACT_STATUSES,
  CONTACT_TYPES,
  type ContactSource,
  type ContactStatus,
  type ContactType,
} from '../../db/schema.ts';

/** SPEC.md "Contact", plus updatedAt, optedOut and externalId. Event payloads carry exactly this. */
export const ContactSchema = Type.Object(
  {
    id: Type.String({ description: 'ct_… identifier' }),
    code: Type.String({ description: 'Human-readable code, unique in the organization (CT-000042)' }),
    firstName: Type.String(),
    lastName: Type.String(),
    fullName: Type.String(),
    email: Nullable(Type.String({ format: 'email' })),
    phone: Nullable(Type.String({ description: 'E.164, leading +' })),
    source: StringEnum(CONTACT_SOURCES),
    status: StringEnum(CONTACT_STATUSES),
    type: StringEnum(CONTACT_TYPES),
    score: Type.Number({ minimum: 0, maximum: 100 }),
    ownerId: Nullable(Type.String({ description: 'Agent who owns the contact' })),
    preferredCity: Nullable(Type.String()),
    preferredLanguage: Nullable(
      Type.String({
        description:
          "ISO 639-1: the language emails reach them in (null: the organization's default); recorded from the browser by the portal forms",
      }),
    ),
    preferredType: Nullable(Type.String({ description: 'Property type, e.g. APARTMENT' })),
    budget: Type.Union([Type.Number(), Type.Null()]),
    currency: Nullable(Type.String({ description: 'ISO 4217' })),
    tags: Type.Array(Type.String()),
    optedOut: Type.Boolean({ description: 'The contact asked not to be messaged' }),
    externalId: Nullable(Type.String()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'Contact', additionalProperties: false },
);
export type Contact = Static<typeof ContactSchema>;

// ---------------------------------------------------------------------------------------------
// Writes (v1 and back office take the same body)

const NullableText = (maxLength: number, description?: string) =>
  Type.Union([
    Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) }),
    Type.Null(),
  ]);

const writableFields = {
  firstName: NotBlank({ minLength: 1, maxLength: 100 }),
  lastName: Type.String({ maxLength: 100, description: 'Empty string when unknown' }),
  email: Type.Union([Type.String({ format: 'email', maxLength: 254 }), Type.Null()], {
    description: 'Unique in the organization, case-insensitively',
  }),
  phone: Type.Union([
    PhoneText({
      minLength: 7,
      maxLength: 30,
      description:
        "International (+34612345678) or national in the organization's default country; validated as a phone number of that country, stored in E.164, unique in the organization",
    }),
    Type.Null(),
  ]),
  source: StringEnum(CONTACT_SOURCES),
  status: StringEnum(CONTACT_STATUSES),
  type: StringEnum(CONTACT_TYPES),
  ownerId: Type.Union([Type.String({ description: 'agt_… of an agent of the organization' }), Type.Null()]),
  preferredCity: NullableText(100),
  preferredLanguage: Type.Union([
    Type.String({ pattern: LANGUAGE_PATTERN, description: 'ISO 639-1, lower case' }),
    Type.Null(),
  ]),
  preferredType: Type.Union([StringEnum(PROPERTY_TYPES), Type.Null()]),
  budget: Type.Union([Amount(), Type.Null()]),
  currency: Type.Union([Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217' }), Type.Null()]),
  tags: Type.Array(Type.String({ minLength: 1, maxLength: 50 }), {
    maxItems: 50,
    description: 'Replaces the whole list; duplicates are dropped',
  }),
  optedOut: Type.Boolean({ description: 'The contact asked not to be messaged' }),
  externalId: NullableText(255, 'Your own identifier of the person (e.g. in your product)'),
};
/** Field names a write may set, in the order `contact.updated`'s `changes` lists them. */
export const WRITABLE_CONTACT_FIELDS = Object.keys(writableFields) as (keyof typeof writableFields)[];

export const CreateContactBodySchema = Type.Object(
  {
    ...Type.Partial(Type.Object(writableFields)).properties,
    firstName: writableFields.firstName,
  },
  {
    $id: 'CreateContactBody',
    additionalProperties: false,
    description:
      'Defaults: source API (v1) or OTHER (back office), status NEW, type LEAD, no owner, optedOut false; ' +
      "currency defaults to the organization's when a budget is given",
  },
);
export type CreateContactBody = Static<typeof CreateContactBodySchema>;

export const UpdateContactBodySchema = Type.Object(Type.Partial(Type.Object(writableFields)).properties, {
  $id: 'UpdateContactBody',
  additionalProperties: false,
  minProperties: 1,
  // A change names what it changes: sampled, it would also opt the contact out and zero the budget.
  examples: [{ status: 'QUALIFIED', budget: 420000, tags: ['vip', 'buyer'] }],
  description:
    'Only the fields sent change; null clears a nullable field. `score` is computed, never written.',
});
export type UpdateContactBody = Static<typeof UpdateContactBodySchema>;

// ---------------------------------------------------------------------------------------------
// Batch writes (POST /v1/contacts/batch, decision 0181)

/** The most items one batch takes. */
export const MAX_CONTACT_BATCH = 100;
/** Items of a batch that count as one write against the write limits (decision 0183). */
export const CONTACTS_PER_WRITE_POINT = 10;

export const ContactBatchItemSchema = Type.Object(
  {
    ...CreateContactBodySchema.properties,
    externalId: Type.Optional(
      NullableText(
        255,
        'Your own identifier of the person (e.g. in your product); a batch matches on it first',
      ),
    ),
  },
  {
    $id: 'ContactBatchItem',
    additionalProperties: false,
    description:
      'A CreateContactBody. Matched in the organization by `externalId`, else by phone (any format), else by ' +
      'email (any case): no match creates a contact (defaults as on create), a match is changed like a PATCH ' +
      'with the fields sent (only values that differ)',
  },
);
export type ContactBatchItem = Static<typeof ContactBatchItemSchema>;

export const ContactBatchBodySchema = BatchBody('contacts', ContactBatchItemSchema, {
  $id: 'ContactBatchBody',
  maxItems: MAX_CONTACT_BATCH,
  description: 'Contacts to create or update, written in order, each in its own savepoint of one transaction',
  example: [
    { firstName: 'Lucía', lastName: 'García', externalId: 'crm-7781', email: 'lucia.garcia@example.com' },
    { firstName: 'Marta', phone: '+34600111222', tags: ['buyer'] },
    { firstName: 'Pablo', phone: '600 11 12' },
  ],
});
export type ContactBatchBody = Static<typeof ContactBatchBodySchema>;

export const CONTACT_BATCH_STATUSES = ['created', 'updated', 'unchanged', 'error'] as const;
export type ContactBatchStatus = (typeof CONTACT_BATCH_STATUSES)[number];

const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const ContactBatchResultSchema = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          index: Type.Integer({ minimum: 0, description: "The item's position in `contacts`" }),
          status: StringEnum(CONTACT_BATCH_STATUSES, {
            description:
              '`created`, `updated` (`contact.updated` names the fields), `unchanged` (nothing differed: ' +
              'nothing written, no event) or `error` (nothing written)',
          }),
          id: Nullable(Type.String({ description: 'The contact (ct_…); null on error' })),
          error: Type.Union([ref(BatchItemErrorSchema), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      { description: 'One per item, in the order sent' },
    ),
    summary: Type.Object(
      {
        created: Count('Items that created a contact'),
        updated: Count('Items that changed a contact'),
        unchanged: Count('Items whose contact already had every value sent'),
        failed: Count('Items with `status: error`'),
      },
      { additionalProperties: false },
    ),
  },
  {
    $id: 'ContactBatchResult',
    additionalProperties: false,
    description: 'What each item of the batch did',
    examples: [
      {
        results: [
          { index: 0, status: 'created', id: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uE', error: null },
          { index: 1, status: 'updated', id: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uF', error: null },
          {
            index: 2,
            status: 'error',
            id: null,
            error: {
              code: 'VALIDATION_ERROR',
              message:
                'body.contacts[2].phone is not a valid phone number (use the international format, e.g. +34612345678, or a ES number)',
              details: [
                {
                  field: 'body.contacts[2].phone',
                  message:
                    'is not a valid phone number (use the international format, e.g. +34612345678, or a ES number)',
                },
              ],
            },
          },
        ],
        summary: { created: 1, updated: 1, unchanged: 0, failed: 1 },
      },
    ],
  },
);
export type ContactBatchResult = Static<typeof ContactBatchResultSchema>;

export const ContactBatchResponseSchema = DataOf(ref(ContactBatchResultSchema));

// ---------------------------------------------------------------------------------------------
// Reads

export const CONTACT_SORTS = ['createdAt', 'updatedAt', 'score', 'lastName'] as const;
export type ContactSort = (typeof CONTACT_SORTS)[number];

export const ListContactsQuerySchema = Type.Object(
  {
    ...pageQuery(),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Case- and accent-insensitive substring of first name, last name, email or phone; every word must ' +
          'match. Input that looks like a phone number (digits, spaces, + - . ( )) matches the E.164 digits.',
      }),
    ),
    status: Type.Optional(StringEnum(CONTACT_STATUSES)),
    source: Type.Optional(StringEnum(CONTACT_SOURCES)),
    type: Type.Optional(StringEnum(CONTACT_TYPES)),
    tag: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, description: 'Contacts carrying this tag' }),
    ),
    ownerId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'agt_… of the owner' })),
    createdAfter: Type.Optional(DateOrDateTime('createdAt at or after (a date means its start, UTC)')),
    createdBefore: Type.Optional(DateOrDateTime('createdAt strictly before (a date means its start, UTC)')),
    optedOut: Type.Optional(Type.Boolean()),
    externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    sortBy: Type.Optional(StringEnum(CONTACT_SORTS, { description: 'Default createdAt' })),
    sortOrder: Type.Optional(
      StringEnum(['asc', 'desc'] as const, { description: 'Default asc for lastName, desc otherwise' }),
    ),
    ...syncQuery(),
  },
  { additionalProperties: false },
);
export type ListContactsQuery = Static<typeof ListContactsQuerySchema>;

export const ContactIdParamsSchema = Type.Object({ id: Type.String() }, { additionalProperties: false });

export const ContactResponseSchema = DataOf(ref(ContactSchema));
export const ContactListResponseSchema = ListOf(ref(ContactSchema), { cursorMode: true });

export const contactsSchemas: TSchema[] = [
  ContactSchema,
  CreateContactBodySchema,
  UpdateContactBodySchema,
  ContactBatchItemSchema,
  ContactBatchBodySchema,
  ContactBatchResultSchema,
];
