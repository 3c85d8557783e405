import type { FastifyBaseLogger } from 'fastify';
import type { LoggerOptions } from 'pino';
import { loggedUrl, REDACTED, type LoggedRequest } from './redact-url.ts';

export type Logger = FastifyBaseLogger;

/**
 * Paths pino replaces with "[redacted]": credentials in request headers (the console's CSRF token
 * among them) and secret-like members of a logged object; credentials in URLs are the `req`
 * serializer's (redact-url.ts). A key or token must never reach a log line. Explicit paths only:
 * wildcards (`*.key`) are evaluated against the bindings of every per-request child logger, which
 * cost ~10% of the cheapest route's CPU in bench/.
 */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'headers["x-api-key"]',
  'headers.authorization',
  'headers["x-csrf-token"]',
  'key',
  'secret',
  'previousSecret',
  'secrets',
  'secretsKey',
  'secretsKeyPrevious',
  'apiKey',
  'adminToken',
  'token',
  'password',
  // OAuth 2.0 names of the key (POST /oauth/token): no line logs the form, nor the answer, but a
  // line that ever did would carry them under these names.
  'client_secret',
  'access_token',
];

const LOG_CONTEXT = Symbol('agency-crm.logContext');

/** Who called, once the key is known: carried by every later line of the request's log. */
export interface LogContext {
  organizationId: string;
  keyId: string;
}

type WithContext = Record<symbol, LogContext | undefined>;

/**
 * Adds the caller's organization and key to every later line of this request's logger: a plain
 * property that pino's `mixin` reads only when a line is written (pino's setBindings re-serialises
 * the bindings on every request, a measurable share of the cheapest route in bench/).
 */
export function bindLogContext(log: Logger, context: LogContext): void {
  (log as unknown as WithContext)[LOG_CONTEXT] = context;
}

/** What the `req` serializer reads of a Fastify request. */
interface SerializedRequest extends LoggedRequest {
  method: string;
  headers: Record<string, unknown>;
  ip?: string;
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    mixin(_object, _level, logger) {
      const context = (logger as unknown as WithContext)[LOG_CONTEXT];
      // A fresh object: pino merges the line's own fields into what the mixin returns.
      return context ? { organizationId: context.organizationId, keyId: context.keyId } : {};
    },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers: {
      // The Fastify request: its URL without credentials or query values (decision 0240).
      req(request: SerializedRequest) {
        return {
          method: request.method,
          url: loggedUrl(request),
          headers: request.headers,
          remoteAddress: request.ip,
        };
      },
    },
  };
}
