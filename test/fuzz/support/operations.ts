import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { OpenAPIBackend, ValidationContext, type Document } from 'openapi-backend';
import type { RouteAuth } from '../../../src/platform/http/route-config.ts';
import type { RouteEntry, RouteKind } from '../../../src/platform/http/conventions.ts';

/** A JSON Schema node as the dereferenced OpenAPI document has it. */
export type Schema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  additionalProperties?: boolean | Schema;
};

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

/** One operation of GET /v1/openapi.json, joined with what its route declares about credentials. */
export interface Operation {
  operationId: string;
  method: string;
  /** OpenAPI form: /v1/contacts/{id} */
  path: string;
  pathParams: Parameter[];
  queryParams: Parameter[];
  body: Schema | null;
  /** Declared statuses (strings, as in the document). */
  statuses: string[];
  /** Media types documented per status (a status without content has none). */
  mediaTypes: Record<string, string[]>;
  /** Response headers documented per status. */
  headers: Record<string, string[]>;
  /** The documented headers marked `required` per status: the answer always carries them. */
  requiredHeaders: Record<string, string[]>;
  kind: RouteKind;
  auth: RouteAuth | undefined;
}

export interface Api {
  operations: Operation[];
  /** ajv errors of `body` against the operation's declared schema for `status` (null: valid). */
  responseErrors(operationId: string, status: number, body: unknown): string | null;
}

interface RawOperation {
  operationId?: string;
  method: string;
  path: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
}

/**
 * Loads the document the service serves (the one integrators see), dereferences it with
 * openapi-backend and compiles its response schemas with ajv (+ formats), so a 2xx is checked
 * against exactly what the document promises.
 */
export async function loadApi(app: FastifyInstance): Promise<Api> {
  const served = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
  if (served.statusCode !== 200) throw new Error(`GET /v1/openapi.json: ${served.statusCode}`);
  return apiOf(served.json() as Document, app.routeTable);
}

/** The operations of `definition` (a copy of the served document: it is dereferenced in place). */
export function apiOf(definition: Document, routeTable: RouteEntry[]): Promise<Api> {
  const text = JSON.stringify(definition);
  const key = `${text}\n${JSON.stringify(routeTable)}`;
  let api = apis.get(key);
  // A copy: openapi-backend dereferences the document it is given in place.
  if (api === undefined) apis.set(key, (api = compileApi(JSON.parse(text) as Document, routeTable)));
  return api;
}

type HeaderObject = { $ref?: string; required?: boolean };

/** The names of the headers marked required, whether given inline or by reference to components.headers. */
function requiredOf(definition: Document, headers: Record<string, unknown> | undefined): string[] {
  const components = (definition as { components?: { headers?: Record<string, HeaderObject> } }).components;
  return Object.entries((headers ?? {}) as Record<string, HeaderObject>)
    .filter(([, header]) =>
      header.$ref === undefined
        ? header.required === true
        : components?.headers?.[header.$ref.split('/').at(-1) ?? '']?.required === true,
    )
    .map(([name]) => name);
}

/**
 * Apis by document text and route table: the apps of a run serve the same document again and again,
 * and its compiled validators are most of the cost of a check.
 */
const apis = new Map<string, Promise<Api>>();

async function compileApi(definition: Document, routeTable: RouteEntry[]): Promise<Api> {
  // quick: no validation of the document itself (openapi-backend's validator knows OpenAPI 3.0 only;
  // CI lints the 3.1 document with redocly) and validators compiled on first use.
  const backend = new OpenAPIBackend({
    definition,
    quick: true,
    strict: false,
    ajvOpts: { strict: false, allErrors: true },
    customizeAjv: (ajv) => {
      addFormats.default(ajv);
      return ajv;
    },
  });
  await backend.init();

  const routes = new Map(routeTable.map((route) => [route.operationId, route]));
  const operations: Operation[] = [];
  for (const raw of backend.getOperations() as unknown as RawOperation[]) {
    const operationId = raw.operationId;
    if (!operationId) throw new Error(`${raw.method} ${raw.path} has no operationId`);
    const route = routes.get(operationId);
    if (!route?.kind) throw new Error(`${operationId} is in the document but not in the route table`);
    const parameters = raw.parameters ?? [];
    operations.push({
      operationId,
      method: raw.method.toUpperCase(),
      path: raw.path,
      pathParams: parameters.filter((p) => p.in === 'path'),
      queryParams: parameters.filter((p) => p.in === 'query'),
      body: raw.requestBody?.content?.['application/json']?.schema ?? null,
      statuses: Object.keys(raw.responses ?? {}),
      mediaTypes: Object.fromEntries(
        Object.entries(raw.responses ?? {}).map(([status, r]) => [status, Object.keys(r.content ?? {})]),
      ),
      headers: Object.fromEntries(
        Object.entries(raw.responses ?? {}).map(([status, r]) => [status, Object.keys(r.headers ?? {})]),
      ),
      requiredHeaders: Object.fromEntries(
        Object.entries(raw.responses ?? {}).map(([status, r]) => [status, requiredOf(definition, r.headers)]),
      ),
      kind: route.kind,
      auth: route.auth,
    });
  }

  const responses = new Map(
    (backend.getOperations() as unknown as RawOperation[]).map((raw) => [
      raw.operationId,
      raw.responses ?? {},
    ]),
  );
  responseAjv ??= backend.validator.getAjv(ValidationContext.Response);
  return {
    operations,
    responseErrors(operationId, status, body) {
      const response = responses.get(operationId)?.[String(status)];
      if (response === undefined) return null;
      const content = response.content as Record<string, { schema?: unknown }> | undefined;
      const schema =
        content?.['application/json']?.schema ??
        (content === undefined && status === 204 ? { type: 'null' } : undefined);
      if (schema === undefined) return null;
      const validate = responseValidator(schema);
      if (validate(body)) return null;
      return (validate.errors ?? [])
        .slice(0, 5)
        .map((e: ErrorObject) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`)
        .join('; ');
    },
  };
}

/**
 * Response validators by schema text, for the whole run: openapi-backend compiles every status of an
 * operation in an Ajv of its own, so the error schema every operation shares was compiled again for
 * each (most of a test file's checking time). Configured as openapi-backend configures its own.
 */
let responseAjv: Ajv | undefined;
const responseValidators = new Map<string, ValidateFunction>();

function responseValidator(schema: unknown): ValidateFunction {
  const text = JSON.stringify(schema);
  let validate = responseValidators.get(text);
  if (validate === undefined) {
    validate = responseAjv!.compile(JSON.parse(text) as object);
    responseValidators.set(text, validate);
  }
  return validate;
}
