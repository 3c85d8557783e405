import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { OpenAPIBackend, type Document } from 'openapi-backend';
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
export async function apiOf(definition: Document, routeTable: RouteEntry[]): Promise<Api> {
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
      kind: route.kind,
      auth: route.auth,
    });
  }

  return {
    operations,
    responseErrors(operationId, status, body) {
      const result = backend.validateResponse(body, operationId, status);
      if (result.valid) return null;
      return (result.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`)
        .join('; ');
    },
  };
}
