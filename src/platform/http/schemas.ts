import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { ERROR_CODES } from '../errors/errors.ts';
import { MIN_PHONE_DIGITS, PHONE_PATTERN } from '../text/phone.ts';

/**
 * A `$ref` to a shared (named) schema that keeps the referenced schema's static type, so a route
 * can say `200: ref(MeSchema)` and still get typed replies. Shared schemas carry `$id` and are
 * registered once with `app.addSchema` (see `sharedSchemas`); OpenAPI shows them by name.
 */
export function ref<T extends TSchema & { $id?: string }>(schema: T) {
  if (!schema.$id) throw new Error('ref() needs a schema with $id');
  return Type.Unsafe<Static<T>>({ $ref: `${schema.$id}#` });
}

export const ErrorDetailSchema = Type.Object(
  { field: Type.String(), message: Type.String() },
  { $id: 'ErrorDetail', additionalProperties: false },
);

export const ErrorResponseSchema = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({ enum: ERROR_CODES, description: 'Stable machine-readable code' }),
        message: Type.String({ description: 'What went wrong, naming the failing field or header' }),
        requestId: Type.String({ description: 'Also in the X-Request-Id header; quote it to support' }),
        details: Type.Optional(Type.Array(ref(ErrorDetailSchema))),
        reason: Type.Optional(Type.String({ description: 'Messaging mode of a 409 CONFLICT' })),
        windowExpiresAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
      },
      { additionalProperties: true },
    ),
  },
  { $id: 'ErrorResponse', additionalProperties: false, description: 'Every failure, on every route' },
);

export const PageMetaSchema = Type.Object(
  {
    total: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    pageSize: Type.Integer({ minimum: 1 }),
    totalPages: Type.Integer({ minimum: 0 }),
    totalIsLowerBound: Type.Optional(
      Type.Literal(true, {
        description:
          'Present (true) only when the list stopped counting: there are at least `total` matches (more than ' +
          '10,000), and `totalPages` counts the pages of those. Further pages are still served: read on until a ' +
          'page is shorter than `pageSize`, or walk the list in cursor mode where it offers one',
      }),
    ),
  },
  {
    $id: 'PageMeta',
    additionalProperties: false,
    description:
      'Page mode (SPEC): the page asked for and the count of every match, exact up to 10,000 matches; past ' +
      'that, lists that can grow that large (contacts, properties, deals, leads, visit requests, request ' +
      'logs) give 10,000 or more as a lower bound with `totalIsLowerBound: true`',
  },
);

/** `meta` of a list in cursor mode (`updatedAfter` or `cursor`): no count, a cursor to the next page. */
export const CursorMetaSchema = Type.Object(
  {
    pageSize: Type.Integer({ minimum: 1 }),
    hasMore: Type.Boolean({ description: 'More items follow: fetch them with `cursor=<nextCursor>`' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Opaque; send it as `cursor` with the same filters. null on the last page',
    }),
  },
  {
    $id: 'CursorMeta',
    additionalProperties: false,
    description: 'Cursor mode (`updatedAfter` or `cursor`): items by (updatedAt, id), oldest change first',
  },
);

/**
 * The largest amount of money a request may carry: the most a `numeric(14,2)` column holds. A
 * larger one (10^12 itself included) overflowed the column: a 500 instead of a 400.
 */
export const MAX_AMOUNT = 999_999_999_999.99;

/** A non-negative amount of money (price, budget, deal value), stored in a numeric(14,2) column. */
export const Amount = (options: { description?: string } = {}) =>
  Type.Number({ minimum: 0, maximum: MAX_AMOUNT, ...options });

export const DateTime = (options: { description?: string } = {}) =>
  Type.String({ format: 'date-time', ...options });

/** `{orgId}` of the admin routes under /admin/v1/organizations/{orgId}/ (a live organization or its test twin). */
export const OrganizationIdParamsSchema = Type.Object(
  { orgId: Type.String() },
  { additionalProperties: false },
);

/** The schema or null (a nullable field). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Registered with app.addSchema before any route; features add their own named schemas too. */
export const sharedSchemas: TSchema[] = [
  ErrorDetailSchema,
  ErrorResponseSchema,
  PageMetaSchema,
  CursorMetaSchema,
];

/** `{data}` wrapper of a single resource. */
export function DataOf<T extends TSchema>(item: T, options: { $id?: string; description?: string } = {}) {
  return Type.Object({ data: item }, { additionalProperties: false, ...options });
}

/** A string enum whose static type is the union of its values (plain `enum` keeps `string`). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** The answer of a DELETE: `{data: {id, deleted: true}}`. */
export const DeletedResponseSchema = DataOf(
  Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { additionalProperties: false }),
);

/**
 * Messages a schema gives for its own failing keywords (`{pattern: 'must not be blank'}`), shown in
 * `error.details` instead of Ajv's wording; on an `anyOf`/`oneOf` it replaces the branches' issues
 * with one message at the union's field; on `additionalProperties`, `{name: message}` names why a
 * property the schema does not take is refused. An OpenAPI extension (`x-`), so tools that do not know it
 * ignore it; Ajv is told it is an annotation (`errorMessagesKeyword`).
 */
export const ERROR_MESSAGES = 'x-error-messages';
/** By keyword; `additionalProperties` may give one message per property name instead. */
export type ErrorMessages = Partial<Record<string, string | Record<string, string>>>;

/**
 * On a batch body's array: the named schema each item must match (`x-batch-items`). The route validates
 * only that every item is an object, the service validates each one against the named schema (an
 * invalid item fails alone), and the document shows the array's items as that schema (platform/http/batch.ts).
 */
export const BATCH_ITEMS = 'x-batch-items';

/**
 * Ajv plugin: accepts `x-error-messages` and `x-batch-items` as annotations (Ajv's strict mode refuses
 * unknown keywords).
 */
export function annotationKeywords<A extends { addKeyword(keyword: string): unknown }>(ajv: A): A {
  ajv.addKeyword(ERROR_MESSAGES);
  ajv.addKeyword(BATCH_ITEMS);
  return ajv;
}

/** Text with a character other than white space: what services that `trim()` call "blank" is refused. */
export const NotBlank = (options: { minLength?: number; maxLength?: number; description?: string } = {}) =>
  Type.String({
    ...options,
    pattern: '\\S',
    [ERROR_MESSAGES]: { pattern: 'must not be blank' },
  });

/**
 * A phone number as a client may type it, within the field's lengths: validated by the service
 * with libphonenumber (`platform/text/phone.ts`), which JSON Schema cannot run; the pattern says
 * the part it can (enough digits).
 */
export const PhoneText = (options: { minLength?: number; maxLength: number; description?: string }) =>
  Type.String({
    ...options,
    pattern: PHONE_PATTERN,
    description:
      options.description ??
      "International (+34612345678) or national in the organization's default country; validated as a phone number of that country and stored in E.164",
    [ERROR_MESSAGES]: {
      pattern: `is not a valid phone number (it needs at least ${MIN_PHONE_DIGITS} digits; use the international format, e.g. +34612345678)`,
    },
  });
