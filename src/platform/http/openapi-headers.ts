import { IDEMPOTENCY_KEY_PATTERN } from '../idempotency/idempotency.plugin.ts';
import type { RouteEntry } from './conventions.ts';

const integer = { type: 'integer', minimum: 0 };
const text = { type: 'string' };

/** Every header an answer may carry, once, under `components.headers`. */
const HEADERS: Record<string, { description: string; schema: object; example?: unknown }> = {
  'X-Request-Id': {
    description: 'Id of this request (also `error.requestId`); quote it to support',
    schema: text,
    example: 'req_0VhJ3kQ2Zt8mX1pR4sT6uE',
  },
  'X-RateLimit-Limit': {
    description: "Requests per minute of the key's `key` policy",
    schema: integer,
    example: 60,
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window',
    schema: integer,
    example: 42,
  },
  'X-RateLimit-Reset': { description: 'Seconds until the window resets', schema: integer, example: 18 },
  'RateLimit-Policy': {
    description:
      'draft-ietf-httpapi-ratelimit-headers: every policy of the key, `"<name>";q=<limit>;w=<window seconds>`',
    schema: text,
    example: '"key";q=60;w=60, "key-writes";q=30;w=60, "organization-writes";q=300;w=60',
  },
  RateLimit: {
    description:
      'draft-ietf-httpapi-ratelimit-headers: the counted policy closest to exhaustion, `"<name>";r=<remaining>;t=<reset seconds>`',
    schema: text,
    example: '"key";r=42;t=18',
  },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: integer, example: 18 },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
  'WWW-Authenticate': {
    description:
      'The credential wanted: `ApiKey realm="agency-crm", in="header", name="X-API-Key"` (REST), `Bearer ...` (admin API, MCP)',
    schema: text,
  },
  Allow: { description: 'The methods this path serves', schema: text, example: 'POST' },
  Deprecation: {
    description: 'RFC 9745: this operation is deprecated, since this instant (`@<unix seconds>`)',
    schema: text,
    example: '@1798761600',
  },
  Sunset: {
    description: 'RFC 8594: when this deprecated operation stops answering (an HTTP date)',
    schema: text,
    example: 'Thu, 01 Jul 2027 00:00:00 GMT',
  },
  ETag: {
    description:
      'A strong validator of this exact body (the same in every process): send it back in `If-None-Match` to get a 304 ' +
      'while the answer is unchanged',
    schema: text,
    example: '"3q2-7wEjRbV2mFc9kQx1Zw"',
  },
  'Cache-Control': {
    description:
      '`public, max-age=N` for a publishable key (browsers and CDNs may reuse the answer for N seconds, ' +
      'PORTAL_CACHE_MAX_AGE_S), `private, max-age=N` for a secret one; `no-store` on an answer that may ' +
      'carry a credential (the OAuth token endpoint)',
    schema: text,
    example: 'public, max-age=30',
  },
  Pragma: {
    description: '`no-cache`, beside `Cache-Control: no-store`, for HTTP/1.0 caches (RFC 6749 §5.1)',
    schema: text,
    example: 'no-cache',
  },
  Vary: {
    description: 'The answer depends on the key (its organization): caches keep one copy per `X-API-Key`',
    schema: text,
    example: 'X-API-Key',
  },
  Link: {
    description: 'With `rel="deprecation"`: where the replacement of this deprecated operation is described',
    schema: text,
  },
};

const RATE_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];

/**
 * The headers of an answer that it always carries (`required: true` in the document): the request id
 * on every answer (set before anything else, and again by the error handler); the rate-limit headers
 * on every success of a counted route (the auth hook counts a known credential before the route runs);
 * an error may come before the count (a bad Host, an unknown key, the database down), so on errors
 * they stay optional.
 */
function alwaysOn(route: RouteEntry, status: string, name: string): boolean {
  if (name === 'X-Request-Id') return true;
  const counted = route.kind === 'keyed' || route.kind === 'console' || route.kind === 'token';
  return counted && RATE_HEADERS.includes(name) && (status.startsWith('2') || status === '304');
}

/** The headers of one answer of one operation. */
function headersOf(route: RouteEntry, status: string): string[] {
  const names = ['X-Request-Id'];
  if (status === '401') names.push('WWW-Authenticate');
  else if (route.kind === 'keyed' || route.kind === 'console' || route.kind === 'token')
    names.push(...RATE_HEADERS);
  if (status === '429' || status === '503' || (status === '409' && route.idempotent))
    names.push('Retry-After');
  if (status === '405') names.push('Allow');
  // Any stored answer replays, a 4xx too; nothing is stored before authentication and the rate limits.
  if (route.idempotent && !['401', '429'].includes(status) && !status.startsWith('5')) {
    names.push('Idempotent-Replayed');
  }
  if (route.deprecated) names.push('Deprecation', 'Sunset', ...(route.deprecated.link ? ['Link'] : []));
  if (route.cached && (status === '200' || status === '304')) names.push('ETag', 'Cache-Control', 'Vary');
  if (route.noStore) names.push('Cache-Control', 'Pragma');
  return names;
}

/** The OpenAPI Header Object of one of HEADERS. */
function headerObject(name: string): { description: string; schema: object } {
  const { description, schema, example } = HEADERS[name]!;
  return { description, schema: example === undefined ? schema : { ...schema, examples: [example] } };
}

type Operation = {
  parameters?: unknown[];
  requestBody?: { required?: boolean };
  responses?: Record<string, { description?: string; headers?: Record<string, unknown> }>;
};

/**
 * Adds what the route schemas cannot say to the generated document: the response headers the service
 * sets (declared once under `components.headers`, referenced per answer), the `Idempotency-Key`
 * parameter of every operation that honours it, and bodies that may be left out (`required: false`). Applied to @fastify/swagger's output (`transformObject`).
 */
export function addHttpHeaders<T extends object>(document: T, routes: RouteEntry[]): T {
  const doc = document as T & {
    paths?: Record<string, Record<string, Operation>>;
    components?: { headers?: Record<string, unknown>; parameters?: Record<string, unknown> };
  };
  const byOperation = new Map(
    routes.map((route) => [`${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')}`, route]),
  );
  doc.components ??= {};
  const used = new Set<string>();
  doc.components.parameters = {
    ...doc.components.parameters,
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a retry safe: the same key and body within 24 hours returns the stored answer (with `Idempotent-Replayed: true`) ' +
        'without repeating the operation; while the first request still runs, a retry waits for its answer (up to ' +
        '5 seconds, then 409 DUPLICATE with `Retry-After: 1`); another body is a 409 DUPLICATE. The key is recorded in ' +
        'the same transaction as the effects, so after a crash a retry runs at once or replays the answer, never twice.',
      schema: {
        type: 'string',
        pattern: IDEMPOTENCY_KEY_PATTERN.source,
        examples: ['order-2027-03-29-0001'],
      },
    },
    IfNoneMatch: {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description:
        'The `ETag` of an answer you hold: while the answer is still byte for byte the same, a 304 without a body ' +
        '(counted by the rate limits like any request).',
      schema: { type: 'string', examples: ['"3q2-7wEjRbV2mFc9kQx1Zw"'] },
    },
  };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      const route = byOperation.get(`${method.toUpperCase()} ${path}`);
      if (!route) continue;
      if (route.optionalBody && operation.requestBody) operation.requestBody.required = false;
      if (route.cached) {
        operation.parameters = [
          ...(operation.parameters ?? []),
          { $ref: '#/components/parameters/IfNoneMatch' },
        ];
        operation.responses = {
          ...operation.responses,
          '304': {
            description: 'Not Modified: the answer is still the one the `If-None-Match` validator names',
          },
        };
      }
      if (route.idempotent) {
        operation.parameters = [
          ...(operation.parameters ?? []),
          { $ref: '#/components/parameters/IdempotencyKey' },
        ];
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const names = headersOf(route, status);
        names.forEach((name) => used.add(name));
        // A reference cannot say `required` (OpenAPI 3.1 Reference Object): a header always present on
        // this answer but not on every answer that names it is written out here, with `required`.
        response.headers = {
          ...response.headers,
          ...Object.fromEntries(
            names.map((name) => [
              name,
              name !== 'X-Request-Id' && alwaysOn(route, status, name)
                ? { ...headerObject(name), required: true }
                : { $ref: `#/components/headers/${name}` },
            ]),
          ),
        };
      }
    }
  }
  // Only the headers some answer carries (Deprecation and Sunset appear once a route is deprecated).
  doc.components.headers = Object.fromEntries(
    Object.keys(HEADERS)
      .filter((name) => used.has(name))
      .map((name) => [
        name,
        name === 'X-Request-Id' ? { ...headerObject(name), required: true } : headerObject(name),
      ]),
  );
  return document;
}
