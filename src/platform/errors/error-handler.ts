import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../../db/errors.ts';
import { newId } from '../ids/ids.ts';
import { loggedUrl } from '../logging/redact-url.ts';
import { AppError, Errors, type ErrorDetail } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The code and message of the error envelope this request was answered with (null until then),
     * a token in the path redacted (decision 0240): kept here so what records the request
     * (platform/request-logs) need not parse the response.
     */
    errorSummary: { code: string; message: string } | null;
  }
}

export interface AjvIssue {
  instancePath: string;
  /** Where in the schema the failing keyword sits (`#/oneOf/0/properties/body/minLength`). */
  schemaPath?: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** The schema holding the failing keyword (Ajv's `verbose`). */
  parentSchema?: unknown;
}

/** Mirrors ERROR_MESSAGES in platform/http/schemas.ts (errors sit below http and do not import it). */
const ERROR_MESSAGES = 'x-error-messages';

/**
 * The message the failing schema gives for this keyword (`x-error-messages`), if it gives one. For
 * `additionalProperties` it may give one per property name (`{additionalProperties: {stageId: '…'}}`):
 * a field a client may well send but the schema does not take, refused with the reason.
 */
function ownMessage(issue: AjvIssue): string | undefined {
  const schema = issue.parentSchema as Record<string, unknown> | undefined;
  const messages = schema && typeof schema === 'object' ? schema[ERROR_MESSAGES] : undefined;
  let message =
    messages && typeof messages === 'object'
      ? (messages as Record<string, unknown>)[issue.keyword]
      : undefined;
  if (issue.keyword === 'additionalProperties' && message && typeof message === 'object') {
    message = (message as Record<string, unknown>)[String(issue.params.additionalProperty)];
  }
  return typeof message === 'string' ? message : undefined;
}

const isUnion = (issue: AjvIssue) => issue.keyword === 'anyOf' || issue.keyword === 'oneOf';

/**
 * A failed `anyOf`/`oneOf`: Ajv lists every branch's issues, then "must match a schema in anyOf". A
 * client meant one of the shapes, so only the issues of the branch that came closest are kept (the
 * fewest issues; the first branch on a tie). A union whose schema names its own message
 * (`x-error-messages`) is reported as that one message at its field instead.
 */
function resolveUnions(issues: AjvIssue[]): AjvIssue[] {
  let kept = issues;
  for (const union of issues.filter(isUnion)) {
    if (!kept.includes(union) || union.schemaPath === undefined) continue;
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, AjvIssue[]>();
    for (const issue of kept) {
      if (!issue.schemaPath?.startsWith(prefix) || !issue.instancePath.startsWith(union.instancePath))
        continue;
      const branch = issue.schemaPath.slice(prefix.length).split('/')[0] ?? '';
      branches.set(branch, [...(branches.get(branch) ?? []), issue]);
    }
    // A oneOf that failed because two branches matched has no branch issues: its own message stays.
    const shapes = [...branches.values()];
    if (shapes.length === 0) continue;
    const closest = ownMessage(union)
      ? []
      : shapes.reduce((best, next) => (next.length < best.length ? next : best));
    const dropped = new Set(shapes.flat().filter((issue) => !closest.includes(issue)));
    if (closest.length > 0) dropped.add(union);
    kept = kept.filter((issue) => !dropped.has(issue));
  }
  return kept;
}

const CONTEXT_NAMES: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

function fieldPath(context: string, instancePath: string, child?: unknown): string {
  const segments = instancePath.split('/').filter(Boolean);
  if (typeof child === 'string') segments.push(child);
  let path = CONTEXT_NAMES[context] ?? context;
  for (const segment of segments) path += /^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`;
  return path;
}

/** Ajv issues -> `[{field, message}]`, naming the exact field (and the unknown property's name). */
export function validationDetails(context: string, issues: AjvIssue[]): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const resolved = resolveUnions(issues);
  // Text of the wrong length is reported by its length alone: its pattern would only add noise.
  const wrongLength = new Set(
    resolved.filter((i) => i.keyword === 'minLength' || i.keyword === 'maxLength').map((i) => i.instancePath),
  );
  for (const issue of resolved) {
    if (issue.keyword === 'pattern' && wrongLength.has(issue.instancePath)) continue;
    const message = ownMessage(issue);
    if (message !== undefined) {
      const child =
        issue.keyword === 'required'
          ? issue.params.missingProperty
          : issue.keyword === 'additionalProperties'
            ? issue.params.additionalProperty
            : undefined;
      details.push({ field: fieldPath(context, issue.instancePath, child), message });
    } else if (issue.keyword === 'additionalProperties') {
      details.push({
        field: fieldPath(context, issue.instancePath, issue.params.additionalProperty),
        message: 'is not allowed',
      });
    } else if (issue.keyword === 'required') {
      details.push({
        field: fieldPath(context, issue.instancePath, issue.params.missingProperty),
        message: 'is required',
      });
    } else if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) {
      details.push({
        field: fieldPath(context, issue.instancePath),
        message: `must be one of ${(issue.params.allowedValues as unknown[]).join(', ')}`,
      });
    } else {
      details.push({
        field: fieldPath(context, issue.instancePath),
        message: issue.message ?? `fails ${issue.keyword}`,
      });
    }
  }
  // anyOf/oneOf repeat the same field; keep each (field, message) once.
  const seen = new Set<string>();
  return details.filter((d) => {
    const id = `${d.field}\u0001${d.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** The 400 of failed schema checks: every issue as a detail, and all of them in the message. */
export function validationFailure(context: string, issues: AjvIssue[]): AppError {
  const details = validationDetails(context, issues);
  return Errors.validation(details.map((d) => `${d.field} ${d.message}`).join('; '), details);
}

/** Maps anything thrown to an AppError; unknown failures become INTERNAL_ERROR (cause kept for the log). */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
  if (Array.isArray(fastifyError.validation)) {
    return validationFailure(fastifyError.validationContext ?? 'body', fastifyError.validation);
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body is larger than the 1 MiB limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return Errors.validation('body must not be empty when Content-Type is application/json', [
        { field: 'body', message: 'must not be empty' },
      ]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return Errors.validation('body is not valid JSON', [{ field: 'body', message: 'is not valid JSON' }]);
    case 'FST_ERR_BAD_URL':
      return Errors.invalidField('path', 'is not valid percent-encoded UTF-8');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return Errors.invalidField('path', `has a parameter longer than ${MAX_PARAM_LENGTH} characters`);
    default:
      break;
  }
  const status = fastifyError.statusCode;
  if (fastifyError instanceof SyntaxError && status === 400) {
    return Errors.validation(`body is not valid JSON: ${fastifyError.message}`, [
      { field: 'body', message: 'is not valid JSON' },
    ]);
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 404) return new AppError('NOT_FOUND', fastifyError.message || 'Not found');
    if (status === 413)
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body is larger than the 1 MiB limit');
    if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', fastifyError.message);
    return Errors.validation(fastifyError.message || 'Bad request', [
      { field: 'request', message: fastifyError.message },
    ]);
  }
  // A database that is down, restarting or dropped the connection: retryable, not a server bug.
  if (isDatabaseUnavailable(error)) return Errors.databaseUnavailable(error);
  return Errors.internal(error);
}

export function errorBody(error: AppError, requestId: string) {
  return {
    error: {
      code: error.code,
      message: error.message,
      requestId,
      ...(error.details ? { details: error.details } : {}),
      ...(error.extra ?? {}),
    },
  };
}

/**
 * The message as the log and request_logs keep it: a 404, a 405 or a refused preflight names the
 * request's path, whose token (a calendar or visitor link) is a credential (decision 0240). The
 * response still names the path as the client sent it.
 */
function loggedMessage(request: FastifyRequest, message: string): string {
  const queryAt = request.url.indexOf('?');
  const path = queryAt === -1 ? request.url : request.url.slice(0, queryAt);
  if (!message.includes(path)) return message;
  const shown = loggedUrl(request, path);
  return shown === path ? message : message.replaceAll(path, shown);
}

export function sendError(request: FastifyRequest, reply: FastifyReply, thrown: unknown) {
  const error = toAppError(thrown);
  const message = loggedMessage(request, error.message);
  if (error.statusCode >= 500) {
    // The cause is logged, never rendered: stack traces and SQL stay out of responses.
    request.log.error({ err: error.cause ?? thrown, code: error.code }, 'request failed');
  } else {
    request.log.info({ code: error.code, statusCode: error.statusCode, msg: message }, 'request refused');
  }
  if (error.headers) reply.headers(error.headers);
  request.errorSummary = { code: error.code, message };
  return reply
    .code(error.statusCode)
    .type('application/json; charset=utf-8')
    .send(errorBody(error, request.id));
}

/** Fastify's limit on one path parameter (its default); no id of ours comes close. */
export const MAX_PARAM_LENGTH = 100;

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route or hook runs (a path that
 * is not valid percent-encoded UTF-8, a path parameter over MAX_PARAM_LENGTH). Without it Fastify
 * writes its own `{error, code, message, statusCode}` body.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // The auth hook, which sets it on every routed request, does not run for these.
  reply.header('x-request-id', request.id);
  return sendError(request, reply, error);
}

function clientErrorOf(error: NodeJS.ErrnoException): AppError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT', 'The request was not received in time');
    case 'HPE_HEADER_OVERFLOW':
      return new AppError(
        'REQUEST_HEADERS_TOO_LARGE',
        'The request line and headers are larger than the 16 KiB limit',
      );
    default:
      return Errors.invalidField('request', `is not valid HTTP/1.1 (${error.code ?? 'parse error'})`);
  }
}

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused the connection's bytes (malformed
 * request line or header, bad chunked framing, headers over the size limit, the request timeout)
 * before there is a request. Answers in the envelope, with a request id of its own, then closes
 * the connection as Node does.
 */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const appError = clientErrorOf(error);
  const requestId = newId('req');
  this.log.info(
    { requestId, code: appError.code, parserError: error.code },
    'request refused by the HTTP parser',
  );
  // A response already under way on this connection cannot be replaced.
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    const body = JSON.stringify(errorBody(appError, requestId));
    socket.write(
      `HTTP/1.1 ${appError.statusCode} ${STATUS_CODES[appError.statusCode]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}

/**
 * The one error mapping: every failure on every route renders `{error:{code,message,requestId,details?}}`
 * (what no route matches: `registerNotFound`, platform/http/not-found.ts).
 */
export function registerErrorHandling(app: FastifyInstance) {
  app.decorateRequest('errorSummary', null);
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
}
