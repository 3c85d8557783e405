/**
 * The one list of error codes, the one code -> status map and the factories every layer throws.
 * The error handler (error-handler.ts) is the only place that renders them.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  PAYMENT_REQUIRED: 402,
  FORBIDDEN: 403,
  SECRET_KEY_IN_BROWSER: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  REQUEST_TIMEOUT: 408,
  DUPLICATE: 409,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  TENANT_RATE_LIMITED: 429,
  REQUEST_HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  MESSAGING_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface ErrorDetail {
  field: string;
  message: string;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  /** Extra members rendered inside `error` (e.g. `reason`, `windowExpiresAt` of a messaging conflict). */
  extra?: Record<string, unknown>;
  /** Response headers that belong to this failure (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly statusCode: number;
  readonly details: ErrorDetail[] | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.statusCode = ERROR_STATUS[code];
    this.details = options.details;
    this.extra = options.extra;
    this.headers = options.headers;
  }
}

/**
 * Retry-After of a 503 for an unavailable database: a PostgreSQL restart or failover takes seconds,
 * and clients that honour it come back spread over that time instead of in a tight loop.
 */
export const DATABASE_RETRY_AFTER_S = 2;

/** The headers of a refusal by `policy` (draft-ietf-httpapi-ratelimit-headers names beside X-RateLimit-*). */
function limitHeaders(
  retryAfterS: number,
  limit: number | undefined,
  policy?: string,
): Record<string, string> {
  const headers: Record<string, string> = { 'retry-after': String(retryAfterS) };
  if (limit !== undefined) {
    headers['x-ratelimit-limit'] = String(limit);
    headers['x-ratelimit-remaining'] = '0';
    headers['x-ratelimit-reset'] = String(retryAfterS);
    if (policy !== undefined) {
      headers.ratelimit = `"${policy}";r=0;t=${retryAfterS}`;
      headers['ratelimit-policy'] = `"${policy}";q=${limit};w=60`;
    }
  }
  return headers;
}

/** Factories: one per situation, so messages stay consistent across features. */
export const Errors = {
  validation: (message: string, details?: ErrorDetail[]) =>
    new AppError('VALIDATION_ERROR', message, { details }),
  invalidField: (field: string, message: string) =>
    new AppError('VALIDATION_ERROR', `${field} ${message}`, { details: [{ field, message }] }),
  missingKey: (bearerSent: boolean) =>
    new AppError(
      'UNAUTHORIZED',
      bearerSent
        ? 'Authorization: Bearer is not accepted on the REST API; send your key in the X-API-Key header'
        : 'Missing API key: send it in the X-API-Key header',
    ),
  /** A route that takes the key in X-API-Key or as a bearer token (RESO's Web API). */
  missingKeyOrBearer: () =>
    new AppError(
      'UNAUTHORIZED',
      'Missing API key: send it in the X-API-Key header or as Authorization: Bearer <secret key>',
    ),
  /** The MCP endpoint takes its key only as a bearer token (SPEC.md "MCP endpoint"). */
  missingBearer: (apiKeyHeaderSent: boolean) =>
    new AppError(
      'UNAUTHORIZED',
      apiKeyHeaderSent
        ? 'X-API-Key is not accepted on the MCP endpoint; send Authorization: Bearer <secret key>'
        : 'Missing API key: send Authorization: Bearer <secret key>',
    ),
  invalidKey: () => new AppError('UNAUTHORIZED', 'Invalid API key'),
  /** A token request with no client credentials (RFC 6749 §5.2 `invalid_client`). */
  missingClientCredentials: () =>
    new AppError(
      'UNAUTHORIZED',
      "Missing client credentials: send the key's id as client_id and the secret key as client_secret, in HTTP Basic or in the form",
    ),
  /** A token request whose `client_id` is not the id of the key given as its secret. */
  wrongClientId: () =>
    new AppError('UNAUTHORIZED', 'client_id is not the id of the key given as client_secret'),
  deactivatedKey: () => new AppError('UNAUTHORIZED', 'This API key has been deactivated'),
  expiredKey: () => new AppError('UNAUTHORIZED', 'This API key has expired'),
  suspendedKey: () => new AppError('FORBIDDEN', 'This API key is suspended'),
  forbidden: (message: string) => new AppError('FORBIDDEN', message),
  secretKeyInBrowser: () =>
    new AppError(
      'SECRET_KEY_IN_BROWSER',
      'Secret keys must never be used from a browser. Use a publishable key (service_pk_…) in web pages and keep secret keys on your server.',
    ),
  readOnlyAccount: () =>
    new AppError(
      'PAYMENT_REQUIRED',
      'This account is in read-only mode: changes are disabled until billing is resolved',
    ),
  notFound: (what: string, id?: string) =>
    new AppError('NOT_FOUND', id === undefined ? `${what} not found` : `${what} ${id} not found`),
  routeNotFound: (method: string, url: string) =>
    new AppError('NOT_FOUND', `Route ${method} ${url} not found`),
  duplicate: (message: string, extra?: Record<string, unknown>) =>
    new AppError('DUPLICATE', message, { extra }),
  conflict: (message: string, extra?: Record<string, unknown>) =>
    new AppError('CONFLICT', message, { extra }),
  /** `limit` is the limit that refused, `policy` its name; the rate-limit headers then describe it. */
  rateLimited: (message: string, retryAfterS: number, limit?: number, policy?: string) =>
    new AppError('RATE_LIMITED', message, { headers: limitHeaders(retryAfterS, limit, policy) }),
  tenantRateLimited: (limit: number, retryAfterS: number) =>
    new AppError('TENANT_RATE_LIMITED', `Organization write limit of ${limit} per minute exceeded`, {
      headers: limitHeaders(retryAfterS, limit, 'organization-writes'),
    }),
  methodNotAllowed: (method: string, path: string, allowed: string) =>
    new AppError('METHOD_NOT_ALLOWED', `${method} ${path} is not supported; use ${allowed}`, {
      headers: { allow: allowed },
    }),
  /** The client accepts no media type the resource can be given in (`Accept`, OData's `$format`). */
  notAcceptable: (message: string) => new AppError('NOT_ACCEPTABLE', message),
  payloadTooLarge: (limitBytes: number) =>
    new AppError('PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${limitBytes} bytes`),
  /** The database is down, restarting or dropped the connection: retryable, so a 503 with Retry-After. */
  databaseUnavailable: (cause?: unknown) =>
    new AppError('SERVICE_UNAVAILABLE', 'The database is temporarily unavailable; retry shortly', {
      headers: { 'retry-after': String(DATABASE_RETRY_AFTER_S) },
      cause,
    }),
  internal: (cause?: unknown) => new AppError('INTERNAL_ERROR', 'Internal server error', { cause }),
};
