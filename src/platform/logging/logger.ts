import type { FastifyBaseLogger } from 'fastify';
import type { LoggerOptions } from 'pino';

export type Logger = FastifyBaseLogger;

/**
 * Paths pino replaces with "[redacted]": credentials in request headers and secret-like members of
 * a logged object. A key or token must never reach a log line. Explicit paths only: wildcards
 * (`*.key`) are evaluated against the bindings of every per-request child logger, which cost ~10%
 * of the cheapest route's CPU in bench/.
 */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
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

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    mixin(_object, _level, logger) {
      const context = (logger as unknown as WithContext)[LOG_CONTEXT];
      // A fresh object: pino merges the line's own fields into what the mixin returns.
      return context ? { organizationId: context.organizationId, keyId: context.keyId } : {};
    },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req(request: { method: string; url: string; headers: Record<string, unknown>; ip?: string }) {
        return {
          method: request.method,
          url: request.url,
          headers: request.headers,
          remoteAddress: request.ip,
        };
      },
    },
  };
}
