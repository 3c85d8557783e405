/**
 * The document cannot drift from the code: every answer a test app gives (inject or HTTP) is checked
 * against the document that app serves. Its status must be documented for the operation, its JSON body
 * must match the documented schema of that status, every header of `components.headers` it carries
 * must be documented on that answer, and the headers it marks `required` there must be present.
 * Problems are collected and fail the test file (per-file setup).
 */
import type { FastifyInstance } from 'fastify';
import type { Document } from 'openapi-backend';
import { apiOf, type Api, type Operation } from '../fuzz/support/operations.ts';

export const contractViolations: string[] = [];

interface Contract {
  api: Api;
  byRoute: Map<string, Operation>;
  knownHeaders: Set<string>;
}

/** Adds the check to an app that is not ready yet (hooks apply to every route registered so far). */
export function checkResponsesAgainstDocument(app: FastifyInstance): void {
  let contract: Promise<Contract> | undefined;
  const load = (): Promise<Contract> => contractOf(app.swagger(), app.routeTable);

  app.addHook('onSend', async (request, reply, payload) => {
    const url = request.routeOptions.url;
    if (url === undefined || request.method === 'HEAD' || request.method === 'OPTIONS') return payload;
    contract ??= load();
    const { api, byRoute, knownHeaders } = await contract;
    const operation = byRoute.get(`${request.method} ${url}`);
    if (!operation) return payload;
    const problem = problemOf(api, operation, reply.statusCode, reply.getHeaders(), payload, knownHeaders);
    if (problem)
      contractViolations.push(`${operation.operationId} (${request.method} ${request.url}): ${problem}`);
    return payload;
  });
}

async function contractOf(served: unknown, routeTable: FastifyInstance['routeTable']): Promise<Contract> {
  const document = served as Document & { components?: { headers?: Record<string, unknown> } };
  const api = await apiOf(document, routeTable);
  const byId = new Map(api.operations.map((operation) => [operation.operationId, operation]));
  const byRoute = new Map<string, Operation>();
  for (const route of routeTable) {
    const operation = route.operationId ? byId.get(route.operationId) : undefined;
    if (operation) byRoute.set(`${route.method} ${route.url}`, operation);
  }
  const knownHeaders = new Set(Object.keys(document.components?.headers ?? {}).map((n) => n.toLowerCase()));
  return { api, byRoute, knownHeaders };
}

function problemOf(
  api: Api,
  operation: Operation,
  status: number,
  headers: Record<string, unknown>,
  payload: unknown,
  knownHeaders: Set<string>,
): string | null {
  const declared = String(status);
  if (!operation.statuses.includes(declared)) return `status ${status} is not documented`;
  const documentedHeaders = new Set((operation.headers[declared] ?? []).map((name) => name.toLowerCase()));
  const undocumented = Object.keys(headers).filter(
    (name) => knownHeaders.has(name) && !documentedHeaders.has(name),
  );
  if (undocumented.length > 0) return `${status} carries undocumented headers ${undocumented.join(', ')}`;
  const missing = (operation.requiredHeaders[declared] ?? []).filter(
    (name) => headers[name.toLowerCase()] === undefined,
  );
  if (missing.length > 0) return `${status} lacks the required headers ${missing.join(', ')}`;
  const text =
    typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  const type = String(headers['content-type'] ?? '');
  if (text === null || text.length === 0 || !type.startsWith('application/json')) return null;
  if (!(operation.mediaTypes[declared] ?? []).includes('application/json')) {
    return `${status} answers JSON where the document has ${operation.mediaTypes[declared]?.join(', ') || 'no body'}`;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${status} with a body that is not JSON`;
  }
  const errors = api.responseErrors(operation.operationId, status, body);
  return errors ? `${status} does not match its schema: ${errors} — ${text.slice(0, 200)}` : null;
}
