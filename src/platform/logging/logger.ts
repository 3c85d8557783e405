import type { FastifyBaseLogger } from 'fastify';
import type { LoggerOptions } from 'pino';

export type Logger = FastifyBaseLogger;

/**
 * Paths pino replaces with "[redacted]": credentials in request headers and any secret-like member
 * of a logged object. A key or token must never reach a log line.
 */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
  '*.key',
  '*.secret',
  '*.apiKey',
  '*.adminToken',
  '*.token',
  '*.password',
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
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
