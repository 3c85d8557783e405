import { sample } from 'openapi-sampler';

/**
 * Examples for the generated document, so every operation shows a request, its success and its
 * failures in the terms of the demo agency rather than `"string"`:
 * 1. string fields without an example get one by name (ids by their resource's prefix), when it fits
 *    the field's own pattern and lengths;
 * 2. every JSON request body and success answer gets an example sampled from its schema
 *    (openapi-sampler, Redocly's, which uses those field examples);
 * 3. every error answer gets the envelope of its status.
 * (Descriptions: openapi-descriptions.ts.)
 */

const ID_SUFFIX = '0VhJ3kQ2Zt8mX1pR4sT6uE';
const id = (prefix: string) => `${prefix}_${ID_SUFFIX}`;

/** What stands for a key or a secret in examples: no real key looks like it. */
export const EXAMPLE_KEY = 'EXAMPLEonlyNotAKeyEXAMPLEonly000abc123';

/** Examples a feature declares for the fields of its schemas (its manifest's `examples`). */
export interface FieldExamples {
  /** Id fields by name: the prefix of the resource they point to (`contactId: 'ct'`). */
  ids?: Readonly<Record<string, string>>;
  /** The `id` of a named schema whose description does not say its prefix (`AdminAgent: 'agt'`). */
  schemaIds?: Readonly<Record<string, string>>;
  /** String fields by name, or by `Schema.field` (tried first). */
  fields?: Readonly<Record<string, string>>;
}

/**
 * Everything the examples are made of (src/api-document.ts): the features' field examples, merged;
 * what a string `format` becomes; the error envelope of each status.
 */
export interface ExampleSet {
  ids: Readonly<Record<string, string>>;
  schemaIds: Readonly<Record<string, string>>;
  fields: Readonly<Record<string, string>>;
  formats: Readonly<Record<string, string>>;
  errors: Readonly<Record<string, { code: string; message: string; details?: unknown[] }>>;
}

/** The features' field examples as one set; a name two features declare keeps the first one's. */
export function mergeFieldExamples(
  declared: readonly FieldExamples[],
): Pick<ExampleSet, 'ids' | 'schemaIds' | 'fields'> {
  const merged = { ids: {}, schemaIds: {}, fields: {} } as Record<
    'ids' | 'schemaIds' | 'fields',
    Record<string, string>
  >;
  for (const examples of declared) {
    for (const kind of ['ids', 'schemaIds', 'fields'] as const) {
      for (const [name, value] of Object.entries(examples[kind] ?? {})) merged[kind][name] ??= value;
    }
  }
  return merged;
}

type Node = Record<string, unknown>;

function fits(node: Node, value: string): boolean {
  if (typeof node.minLength === 'number' && value.length < node.minLength) return false;
  if (typeof node.maxLength === 'number' && value.length > node.maxLength) return false;
  if (typeof node.pattern === 'string' && !new RegExp(node.pattern, 'u').test(value)) return false;
  return true;
}

function exampleFor(
  set: ExampleSet,
  schemaName: string | undefined,
  field: string,
  node: Node,
): string | undefined {
  if (field === 'id' && schemaName !== undefined) {
    const described = /^(\w+)_… identifier/.exec(String(node.description ?? ''))?.[1];
    const prefix = described ?? set.schemaIds[schemaName];
    return prefix === undefined ? undefined : id(prefix);
  }
  const prefix = set.ids[field];
  if (prefix !== undefined) return id(prefix);
  return set.fields[`${schemaName}.${field}`] ?? set.fields[field];
}

function isPlainString(node: Node): boolean {
  const type = node.type;
  return (
    (type === 'string' || (Array.isArray(type) && type.includes('string'))) &&
    node.enum === undefined &&
    node.const === undefined &&
    node.format === undefined &&
    node.example === undefined &&
    node.examples === undefined
  );
}

/** Adds `examples` to the string fields of `node` (recursively) named in the tables above. */
function annotate(
  set: ExampleSet,
  node: unknown,
  schemaName: string | undefined,
  field: string | undefined,
): void {
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Node;
  if (field !== undefined && isPlainString(schema)) {
    const value = exampleFor(set, schemaName, field, schema);
    if (value !== undefined && fits(schema, value)) schema.examples = [value];
  }
  const formatted = typeof schema.format === 'string' ? set.formats[schema.format] : undefined;
  if (formatted !== undefined && schema.examples === undefined && schema.example === undefined) {
    schema.examples = [formatted];
  }
  for (const [name, child] of Object.entries((schema.properties as Record<string, unknown>) ?? {})) {
    annotate(set, child, schemaName, name);
  }
  for (const key of ['items', 'additionalProperties'] as const) annotate(set, schema[key], schemaName, field);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const branch of (schema[key] as unknown[]) ?? []) annotate(set, branch, schemaName, field);
  }
}

type Media = { schema?: unknown; example?: unknown; examples?: unknown };
type Operation = {
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
};

/** The schema's own first example (or its named component's), else one sampled from it. */
function sampled(schema: unknown, document: { components?: { schemas?: Record<string, unknown> } }): unknown {
  const ref = (schema as { $ref?: string }).$ref;
  const target = (ref ? document.components?.schemas?.[ref.split('/').at(-1) ?? ''] : schema) as
    { examples?: unknown[] } | undefined;
  if (Array.isArray(target?.examples) && target.examples.length > 0) return target.examples[0];
  return sample(schema as never, { skipReadOnly: true, quiet: true }, document as never);
}

/** Adds the examples (see the top of this file) to a generated OpenAPI 3.1 document, in place. */
export function addExamples<T extends object>(document: T, set: ExampleSet): T {
  const doc = document as T & {
    paths?: Record<string, Record<string, Operation>>;
    components?: { schemas?: Record<string, unknown> };
  };
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {}))
    annotate(set, schema, name, undefined);
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const request = operation.requestBody?.content?.['application/json'];
      if (request?.schema !== undefined && request.example === undefined && request.examples === undefined) {
        annotate(set, request.schema, undefined, undefined);
        request.example = sampled(request.schema, doc);
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const media = response.content?.['application/json'];
        if (!media?.schema || media.example !== undefined || media.examples !== undefined) continue;
        const error = set.errors[status];
        const envelope = (media.schema as { $ref?: string }).$ref?.endsWith('/ErrorResponse');
        media.example =
          envelope && error ? { error: { ...error, requestId: id('req') } } : sampled(media.schema, doc);
      }
    }
  }
  return document;
}
