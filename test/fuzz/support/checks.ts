import type { LightMyRequestResponse } from 'fastify';
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../../../src/platform/errors/errors.ts';
import type { Api, Operation } from './operations.ts';

/**
 * Everything wrong with one answer, or null. The rules (docs/reliability.md "Hostile input"):
 * - never a 5xx, except a 503 the operation documents;
 * - every failure is the error envelope `{error:{code,message,requestId,details?}}`, its code's
 *   status is the HTTP status, its requestId the X-Request-Id header; a failure the operation
 *   documents with its own schema (the MCP endpoint's JSON-RPC 406) matches that schema instead;
 * - every 2xx is a status the operation documents, and its body matches the documented schema.
 */
export function problemWith(api: Api, operation: Operation, response: LightMyRequestResponse): string | null {
  const status = response.statusCode;
  const declared = operation.statuses.includes(String(status));
  if (status >= 500 && !(status === 503 && declared))
    return `server error ${status}: ${response.body.slice(0, 500)}`;

  const empty = response.body.length === 0;
  const type = String(response.headers['content-type'] ?? '');
  const documentedTypes = operation.mediaTypes[String(status)] ?? [];
  if (status < 300 && documentedTypes.length > 0 && !documentedTypes.includes('application/json')) {
    // A documented non-JSON success (Prometheus text at /metrics): the media type is the contract.
    return documentedTypes.some((t) => type.startsWith(t)) ? null : `${status} with content-type "${type}"`;
  }
  let body: unknown = undefined;
  if (!empty) {
    if (!type.startsWith('application/json')) return `${status} with content-type "${type}"`;
    try {
      body = JSON.parse(response.body);
    } catch {
      return `${status} with a body that is not JSON: ${response.body.slice(0, 200)}`;
    }
  }

  if (status >= 200 && status < 300) {
    if (!declared) return `undocumented success status ${status}`;
    const errors = api.responseErrors(operation.operationId, status, empty ? null : body);
    return errors && !(empty && (status === 202 || status === 204))
      ? `${status} does not match its schema: ${errors}\n  ${response.body.slice(0, 300)}`
      : null;
  }
  if (status < 400) return `unexpected status ${status}`;

  if (declared && !isErrorEnvelope(body)) {
    // A documented non-envelope failure (MCP's JSON-RPC error) must match its own schema.
    const errors = api.responseErrors(operation.operationId, status, body);
    return errors ? `${status} matches neither the envelope nor its schema: ${errors}` : null;
  }
  return envelopeProblem(
    status,
    body,
    response.headers['x-request-id'],
    ODATA_ERRORS.test(operation.operationId) && !refusedByRouter(status, body) ? 'odata' : 'service',
  );
}

/**
 * What the router refuses before any route is known (a path that is not percent-encoded UTF-8, a
 * parameter over the length limit: src/platform/errors/error-handler.ts, frameworkErrors) is answered
 * in the service's envelope on every path, a RESO one too: a 400 naming `path`, and nothing else.
 */
function refusedByRouter(status: number, body: unknown): boolean {
  const details = (body as { error?: { details?: { field?: unknown }[] } } | undefined)?.error?.details;
  return status === 400 && details?.length === 1 && details[0]?.field === 'path';
}

/**
 * The RESO routes answer failures in OData's JSON error format (decision 0258): the same codes,
 * statuses and requestId as the envelope, with `target` and `details: [{code, target, message}]`.
 */
const ODATA_ERRORS = /^reso\./;

/** Our envelope, as opposed to a JSON-RPC error (whose `error.code` is a number). */
function isErrorEnvelope(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const { error } = body as { error: unknown };
  return (
    typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
  );
}

/** The error envelope, exactly as src/platform/errors renders it. */
export function envelopeProblem(
  status: number,
  body: unknown,
  requestIdHeader: unknown,
  shape: 'service' | 'odata' = 'service',
): string | null {
  const text = JSON.stringify(body)?.slice(0, 300);
  if (!isErrorEnvelope(body)) return `${status} is not the error envelope: ${text}`;
  const { error } = body as { error: Record<string, unknown> };
  // `error` may carry context of its own (reason, existingId, ...); nothing may sit beside it.
  const extra = Object.keys(body as object).filter((k) => k !== 'error');
  if (extra.length > 0) return `${status} envelope has members beside error (${extra.join(', ')}): ${text}`;
  if (!ERROR_CODES.includes(error.code as ErrorCode))
    return `${status} envelope has an unknown code: ${text}`;
  if (ERROR_STATUS[error.code as ErrorCode] !== status)
    return `${status} carries code ${String(error.code)}: ${text}`;
  if (typeof error.message !== 'string' || error.message.length === 0)
    return `${status} without a message: ${text}`;
  if (typeof error.requestId !== 'string' || error.requestId !== requestIdHeader)
    return `${status} requestId ${String(error.requestId)} is not X-Request-Id ${String(requestIdHeader)}`;
  if (error.details !== undefined) {
    const members = shape === 'odata' ? ['code', 'target', 'message'] : ['field', 'message'];
    const ok =
      Array.isArray(error.details) &&
      error.details.every(
        (d: unknown) =>
          typeof d === 'object' &&
          d !== null &&
          members.every((name) => typeof (d as Record<string, unknown>)[name] === 'string'),
      );
    if (!ok) return `${status} envelope details are not [{${members.join(', ')}}]: ${text}`;
  }
  return null;
}
