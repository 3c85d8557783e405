import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.ts';
import { loggedUrl } from '../logging/redact-url.ts';
import { maskText } from '../text/mask.ts';
import { RequestLogRecorder, type RecorderOptions, type RequestLogLine } from './recorder.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The request-log buffer: `flush()` writes it now (tests), `metrics` are its counters. */
    requestLogs: RequestLogRecorder;
  }
}

/** Longest error message and MCP tool name kept (the envelope's messages are far shorter). */
const MAX_MESSAGE = 1000;
const MAX_TOOL = 100;

/** The MCP tool a JSON-RPC `tools/call` names; nothing else of the body is looked at. */
function mcpToolOf(body: unknown): string | null {
  if (body === null || typeof body !== 'object') return null;
  const message = body as { method?: unknown; params?: { name?: unknown } | null };
  if (message.method !== 'tools/call') return null;
  const name = message.params?.name;
  return typeof name === 'string' ? name.slice(0, MAX_TOOL) : null;
}

/**
 * Only the API's own traffic: /v1/..., the MCP endpoint and the OAuth token endpoint, where keys are used
 * (not the admin API, pages or /metrics).
 */
function isRecorded(path: string): boolean {
  return path.startsWith('/v1/') || path === '/mcp' || path === '/oauth/token';
}

/** The line of one answered request of an organization (the caller's acting one: a twin for test keys). */
export function requestLogLine(request: FastifyRequest, reply: FastifyReply): RequestLogLine | null {
  const caller = request.caller;
  if (!caller) return null;
  const query = request.url.indexOf('?');
  const path = query === -1 ? request.url : request.url.slice(0, query);
  if (!isRecorded(path)) return null;
  const error = request.errorSummary;
  return {
    organizationId: caller.organization.id,
    at: new Date(Date.now() - reply.elapsedTime),
    requestId: request.id,
    keyId: caller.keyId,
    keyPrefix: caller.keyPrefix,
    method: request.method,
    // A visitor link's token is a credential (decision 0240): kept as /v1/booking/manage/[redacted].
    path: loggedUrl(request, path),
    operationId: (request.routeOptions.schema?.operationId as string | undefined) ?? null,
    mcpTool: path === '/mcp' ? mcpToolOf(request.body) : null,
    status: reply.statusCode,
    errorCode: error?.code ?? null,
    // A DUPLICATE names the phone or email it collided with: kept masked, like MCP results.
    errorMessage: error ? maskText(error.message).slice(0, MAX_MESSAGE) : null,
    latencyMs: Math.round(reply.elapsedTime),
    ip: request.ip ?? null,
  };
}

export interface RequestLogsDependencies {
  db: Database;
  /** REQUEST_LOG_ENABLED: false records nothing (the counters stay at 0). */
  enabled: boolean;
  recorder?: RecorderOptions;
}

/**
 * Request logs (decision 0213): every /v1 and /mcp request that reached an organization's key is
 * buffered at response time and written in batches off the request path (platform/request-logs/
 * recorder.ts). Register once on the root instance; the buffer is written when the app closes.
 */
export function registerRequestLogs(app: FastifyInstance, deps: RequestLogsDependencies): RequestLogRecorder {
  const recorder = new RequestLogRecorder(deps.db, app.log, { ...deps.recorder, timer: deps.enabled });
  app.decorate('requestLogs', recorder);
  app.addHook('onClose', async () => {
    await recorder.close();
  });
  if (!deps.enabled) return recorder;
  // A callback hook, not async: no promise per request on the hot path.
  app.addHook('onResponse', (request, reply, done) => {
    const line = requestLogLine(request, reply);
    if (line) recorder.record(line);
    done();
  });
  return recorder;
}
