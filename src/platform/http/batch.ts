/**
 * Batch writes (decision 0182): a body that carries many items, each validated, written and answered
 * on its own. The route validates the envelope (an object with an array of 1-N objects, else the usual
 * 400); each item is validated here against its named schema, with the messages a single request gets,
 * its fields named where they sit (`body.contacts[3].phone`); a failed item is reported in the answer
 * and the others go on.
 */
import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { isDatabaseUnavailable } from '../../db/errors.ts';
import { toAppError, validationFailure, type AjvIssue } from '../errors/error-handler.ts';
import { ERROR_CODES, type AppError } from '../errors/errors.ts';
import { compileBodyValidator, type BodyValidator } from './compilers.ts';
import { BATCH_ITEMS, ErrorDetailSchema, ref } from './schemas.ts';

/** A named schema (`$id`): what a batch item is checked against and the document names. */
type Named = TSchema & { $id?: string };

/**
 * The body of a batch: `{[field]: [item, ...]}` with 1 to `maxItems` objects. Only that is validated
 * at the edge; the document shows each item as `item` (the `x-batch-items` annotation, replaced by
 * `documentBatchItems`), which the service checks one by one with `validateItem`.
 */
export function BatchBody<K extends string>(
  field: K,
  item: Named,
  options: { $id: string; maxItems: number; description: string; example: unknown[] },
) {
  const name = item.$id;
  if (!name) throw new Error('BatchBody() needs an item schema with $id');
  const items = Type.Array(Type.Unsafe<Record<string, unknown>>({ type: 'object' }), {
    minItems: 1,
    maxItems: options.maxItems,
    [BATCH_ITEMS]: name,
    description:
      `1-${options.maxItems} items, each a ${name}. Each item is validated on its own: one that does not ` +
      'match fails alone (its result names the fields), the others are still written',
  });
  return Type.Object({ [field]: items } as Record<K, typeof items>, {
    $id: options.$id,
    additionalProperties: false,
    description: options.description,
    examples: [{ [field]: options.example }],
  });
}

/** One failed item: the error envelope's `{code, message, details?}`, and `existingId` of a duplicate. */
export const BatchItemErrorSchema = Type.Object(
  {
    code: Type.String({ enum: ERROR_CODES, description: 'The code a single request would have answered' }),
    message: Type.String({ description: 'What went wrong, naming the failing field' }),
    details: Type.Optional(Type.Array(ref(ErrorDetailSchema))),
    existingId: Type.Optional(
      Type.String({ description: 'DUPLICATE: the contact that already has the phone or email' }),
    ),
  },
  {
    $id: 'BatchItemError',
    additionalProperties: false,
    description: 'Why one item of a batch failed (the error a single request would have answered)',
  },
);
export type BatchItemError = Static<typeof BatchItemErrorSchema>;

/** The named schemas of this file, registered with the shared ones (app.ts). */
export const batchSchemas: TSchema[] = [BatchItemErrorSchema];

/** The wire form of an item's failure. */
export function itemErrorOf(error: AppError): BatchItemError {
  const existingId = error.extra?.existingId;
  return {
    code: error.code,
    message: error.message,
    ...(error.details ? { details: error.details } : {}),
    ...(typeof existingId === 'string' ? { existingId } : {}),
  };
}

const validators = new WeakMap<object, BodyValidator>();

/** Where item `index` of the body's `field` sits, as error fields name it: `body.contacts[3]`. */
export function itemPath(field: string, index: number): string {
  return `body.${field}[${index}]`;
}

/**
 * Checks item `index` of the body's `field` against its schema as the single route's body is checked
 * (the app's Ajv settings, the same messages), naming fields where they sit (`body.contacts[3].phone`):
 * returns it typed, or throws the 400 a single request would get. Compiled once per schema.
 */
export function validateItem<T extends Named>(
  schema: T,
  item: unknown,
  at: { field: string; index: number },
): Static<T> {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = compileBodyValidator(schema)));
  if (validate(item)) return item as Static<T>;
  // The issues then read as if the item were the request body at its place in the batch.
  const issues = (validate.errors ?? []) as AjvIssue[];
  const prefix = `/${at.field}/${at.index}`;
  throw validationFailure(
    'body',
    issues.map((issue) => ({ ...issue, instancePath: `${prefix}${issue.instancePath}` })),
  );
}

/** One item's outcome: its value, or the error a single request would have answered. */
export type ItemOutcome<R> =
  { index: number; value: R; error?: undefined } | { index: number; error: AppError };

/** Where an item's unexpected failure (a 5xx) is logged with its cause; it is never rendered. */
export interface ItemFailureLog {
  error(details: object, message: string): void;
}

/**
 * Runs `work` for each item in order, one after the other (each item's own transaction sees the
 * earlier ones' commits). A failure stays with its item; only an unavailable database ends the whole
 * batch (a 503: what later items would meet too), the items already done staying done.
 */
export async function eachItem<I, R>(
  items: readonly I[],
  work: (item: I, index: number) => Promise<R>,
  log?: ItemFailureLog,
): Promise<ItemOutcome<R>[]> {
  const outcomes: ItemOutcome<R>[] = [];
  for (const [index, item] of items.entries()) {
    try {
      outcomes.push({ index, value: await work(item, index) });
    } catch (thrown) {
      if (isDatabaseUnavailable(thrown)) throw thrown;
      const error = toAppError(thrown);
      if (error.statusCode >= 500) log?.error({ err: error.cause ?? thrown, index }, 'batch item failed');
      outcomes.push({ index, error });
    }
  }
  return outcomes;
}

/**
 * The document transform of batch bodies: every array annotated with `x-batch-items` gets
 * `items: {$ref: '#/components/schemas/<name>'}` (the annotation goes), so the document describes a
 * valid item exactly while the route leaves each item's check to the service.
 */
export function documentBatchItems<T extends object>(document: T): T {
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) return node.forEach(visit);
    const schema = node as Record<string, unknown>;
    const name = schema[BATCH_ITEMS];
    if (typeof name === 'string') {
      schema.items = { $ref: `#/components/schemas/${name}` };
      delete schema[BATCH_ITEMS];
    }
    Object.values(schema).forEach(visit);
  };
  visit(document);
  return document;
}
