import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { CredentialKind } from '../auth/caller.ts';
import type { RouteAuth, RouteDeprecation } from './route-config.ts';
import { ErrorResponseSchema, ref } from './schemas.ts';

/**
 * Who a route admits, from its declaration: `keyed` (an API key, `config.auth`), `admin` (the operator
 * token), `console` (a console session), `token` (a URL credential, `config.credential`) or `public`.
 */
export type RouteKind = 'keyed' | 'admin' | 'console' | 'token' | 'public';

/** One registered route as the shared security suite and the docs see it. */
export interface RouteEntry {
  method: string;
  url: string;
  operationId: string | undefined;
  kind: RouteKind | undefined;
  /** The credential kinds it accepts (none for a public route): the security matrix walks them. */
  credentials: CredentialKind[];
  /** A change: a read-only organization's caller gets 402 (the operator excepted). */
  write: boolean;
  auth: RouteAuth | undefined;
  hasResponseSchema: boolean;
  hidden: boolean;
  pathParams: string[];
  /** A POST that honours Idempotency-Key (every POST unless `config.idempotency` is false). */
  idempotent: boolean;
  /** Set when the route is deprecated: its answers carry Deprecation, Sunset and maybe Link. */
  deprecated?: RouteDeprecation;
  /** Its body may be left out (`config.optionalBody`): the document says `required: false`. */
  optionalBody: boolean;
  /** A cacheable read (`config.cache`): ETag, Cache-Control, Vary, If-None-Match and 304 documented. */
  cached: boolean;
  /** Its answers hand out a credential (`config.cache: 'no-store'`): Cache-Control and Pragma documented. */
  noStore: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteEntry[];
  }
}

const errorRef = () => ref(ErrorResponseSchema);

/**
 * Error statuses a route can answer, from what it declares: all of them land in OpenAPI. The suite
 * checks every answer of every test against them (test/helpers/response-contract.ts).
 */
function errorStatuses(
  kind: RouteKind | undefined,
  auth: RouteAuth | undefined,
  route: { hasParams: boolean; takesBody: boolean; idempotent: boolean },
  write: boolean,
) {
  // 400: the input guard reads every request (bad text, nesting, Host); 500: anything unforeseen.
  const statuses = new Set<number>([400, 500]);
  if (kind === 'keyed') {
    // A token endpoint answers a refused key as OAuth 2.0 does (400 unauthorized_client, RFC 6749 §5.2).
    (auth?.clientCredentials ? [401, 429] : [401, 403, 429]).forEach((s) => statuses.add(s));
    if (auth?.write) [402, 409].forEach((s) => statuses.add(s));
  }
  if (kind === 'admin') statuses.add(401);
  // A console session: missing (401), another origin or no CSRF token, an inactive organization (403).
  // Its own request limit (429).
  if (kind === 'console') [401, 403, 429].forEach((s) => statuses.add(s));
  // A URL credential of an inactive organization or agent (403), its own request limit (429).
  if (kind === 'token') [403, 429].forEach((s) => statuses.add(s));
  if ((kind === 'console' || kind === 'token') && write) statuses.add(402);
  // A back-office change can clash with a unique code or name; a POST with a reused Idempotency-Key too.
  if ((kind === 'admin' && route.takesBody) || route.idempotent) statuses.add(409);
  if (route.hasParams) statuses.add(404);
  // Fastify parses a body on every method but GET and HEAD, so any of them can be too large or not JSON.
  // A token endpoint answers a body that is not a form as OAuth's 400 invalid_request.
  if (route.takesBody) (auth?.clientCredentials ? [413] : [413, 415]).forEach((s) => statuses.add(s));
  return [...statuses].sort((a, b) => a - b);
}

type CredentialConfig = {
  auth?: RouteAuth;
  admin?: boolean;
  public?: boolean;
  console?: { write: boolean };
  credential?: { kind: CredentialKind; write: boolean };
};

function kindOf(route: RouteOptions): RouteKind | undefined {
  const config = route.config as CredentialConfig | undefined;
  if (config?.auth) return 'keyed';
  if (config?.admin) return 'admin';
  if (config?.console) return 'console';
  if (config?.credential) return 'token';
  if (config?.public) return 'public';
  return undefined;
}

/** The credential kinds a route accepts and whether it writes, from its declaration. */
function credentialsOf(
  route: RouteOptions,
  methods: string[],
): { credentials: CredentialKind[]; write: boolean } {
  const config = route.config as CredentialConfig | undefined;
  if (config?.auth) return { credentials: ['api_key'], write: config.auth.write };
  if (config?.admin)
    return { credentials: ['operator'], write: methods.some((m) => m !== 'GET' && m !== 'HEAD') };
  if (config?.console) return { credentials: ['console'], write: config.console.write };
  if (config?.credential) return { credentials: [config.credential.kind], write: config.credential.write };
  return { credentials: [], write: false };
}

/**
 * Registered first, before @fastify/swagger: records every route in `app.routeTable`, and adds to
 * each route's schema the error responses and security requirement its declaration implies, so
 * the OpenAPI document lists every failure without each route repeating them.
 */
export function registerRouteConventions(app: FastifyInstance) {
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // Third-party documentation routes (the /docs reference page) are public and undocumented.
    if (route.url.startsWith('/docs')) {
      route.config = { ...(route.config ?? {}), public: true } as typeof route.config;
    }
    const schema = (route.schema ??= {}) as Record<string, unknown> & { response?: Record<string, unknown> };
    const kind = kindOf(route);
    const { credentials, write } = credentialsOf(route, methods);
    const config = route.config as
      | {
          auth?: RouteAuth;
          idempotency?: boolean;
          deprecated?: RouteDeprecation;
          optionalBody?: boolean;
          cache?: 'portal' | 'no-store';
        }
      | undefined;
    const pathParams = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] ?? '');
    const hidden = schema.hide === true;

    // A named body schema (registered with addSchema) is referenced rather than inlined, so the
    // OpenAPI document shows it once under components.schemas and every operation points to it.
    const body = schema.body as { $id?: unknown } | undefined;
    if (body && typeof body.$id === 'string' && app.getSchema(body.$id) !== undefined) {
      schema.body = { $ref: `${body.$id}#` };
    }

    // The idempotency plugin honours Idempotency-Key on every POST (but MCP's JSON-RPC), scoped to
    // the caller's organization, or to the operator's own scope for an admin POST naming none.
    const idempotent = methods.includes('POST') && config?.idempotency !== false;
    if (!hidden) {
      const response = (schema.response ??= {});
      const takesBody = methods.some((method) => method !== 'GET' && method !== 'HEAD');
      for (const status of errorStatuses(
        kind,
        config?.auth,
        {
          hasParams: pathParams.length > 0,
          takesBody,
          idempotent,
        },
        write,
      )) {
        response[String(status)] ??= errorRef();
      }
      if (config?.deprecated) {
        schema.deprecated = true;
        appendRouteHook(route, 'onSend', deprecationHeaders(config.deprecated));
      }
      if (kind === 'keyed')
        schema.security = config?.auth?.bearer
          ? [{ McpBearer: [] }]
          : config?.auth?.alsoBearer
            ? [{ ApiKey: [] }, { KeyBearer: [] }]
            : config?.auth?.clientCredentials
              ? [{ OAuthClient: [] }]
              : [{ ApiKey: [] }];
      else if (kind === 'admin') schema.security = [{ AdminToken: [] }];
      else schema.security = [];
    }

    // A request without a body is validated as `{}`, so every field of the body schema is optional.
    if (config?.optionalBody) appendRouteHook(route, 'preValidation', emptyBodyAsObject);
    if (config?.cache === 'no-store') appendRouteHook(route, 'onSend', noStore);

    for (const method of methods) {
      if (method === 'HEAD') continue;
      table.push({
        method,
        url: route.url,
        operationId: schema.operationId as string | undefined,
        kind,
        credentials,
        write,
        auth: config?.auth,
        // A route that exists only to refuse a method (GET /mcp: 405) documents that refusal instead, and
        // one that only redirects (a Kyero feed photo's alias: 302) its redirect.
        hasResponseSchema: Object.keys(schema.response ?? {}).some(
          (s) => s.startsWith('2') || s === '405' || /^30[1237]$/.test(s),
        ),
        hidden,
        pathParams,
        idempotent: idempotent && method === 'POST',
        deprecated: config?.deprecated,
        optionalBody: config?.optionalBody === true,
        cached: config?.cache === 'portal',
        noStore: config?.cache === 'no-store',
      });
    }
  });
}

async function emptyBodyAsObject(request: FastifyRequest) {
  request.body ??= {};
}

/** RFC 6749 §5.1: an answer that may carry a token is stored by no cache (Pragma for HTTP/1.0 ones). */
async function noStore(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  reply.header('cache-control', 'no-store');
  reply.header('pragma', 'no-cache');
  return payload;
}

/** RFC 9745 `Deprecation: @<unix seconds>`, RFC 8594 `Sunset: <HTTP-date>`, and `Link: <...>; rel="deprecation"`. */
function deprecationHeaders(deprecation: RouteDeprecation) {
  const since = Date.parse(`${deprecation.since}T00:00:00Z`);
  const sunset = Date.parse(`${deprecation.sunset}T00:00:00Z`);
  if (Number.isNaN(since) || Number.isNaN(sunset) || sunset <= since) {
    throw new Error(
      `deprecated route: since ${deprecation.since} and sunset ${deprecation.sunset} are not dates in order`,
    );
  }
  const headers: Record<string, string> = {
    deprecation: `@${since / 1000}`,
    sunset: new Date(sunset).toUTCString(),
  };
  if (deprecation.link) headers.link = `<${deprecation.link}>; rel="deprecation"; type="text/html"`;
  return async (_request: unknown, reply: FastifyReply, payload: unknown) => {
    reply.headers(headers);
    return payload;
  };
}

type HookName = 'preValidation' | 'preHandler' | 'onSend';

/**
 * Adds a hook to one route (from an onRoute hook), after the route's own. Mechanisms that only some
 * routes need (idempotency on POSTs, the input guard on routes with inputs) attach themselves this
 * way, so a request pays only for the hooks its route uses.
 */
export function appendRouteHook(route: RouteOptions, name: HookName, hook: unknown): void {
  const existing = route[name] as unknown;
  const hooks = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
  (route as unknown as Record<HookName, unknown[]>)[name] = [...hooks, hook];
}
