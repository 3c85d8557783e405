import { createHash, timingSafeEqual } from 'node:crypto';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preHandlerAsyncHookHandler,
  preValidationAsyncHookHandler,
} from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { AppError, Errors } from '../errors/errors.ts';
import { isId } from '../ids/ids.ts';
import { appendRouteHook } from '../http/conventions.ts';
import type { RouteAuth } from '../http/route-config.ts';
import { bindLogContext } from '../logging/logger.ts';
import { rateLimitHeaders, type RateLimits, type RateLimitState } from '../rate-limit/rate-limits.ts';
import { CONSOLE_COOKIE, type ConsoleSession, type ConsoleSessions } from './console-sessions.ts';
import { keyLimitsOf, type Caller } from './caller.ts';
import {
  admitOrganization,
  consoleCaller,
  operatorCaller,
  resolveTokenCaller,
  type TokenCredentialResolver,
} from './credentials.ts';
import { authorize, challengeOf, firstHeader, identify, type KeyAuthDependencies } from './key-auth.ts';
import type { OrganizationStates } from './organization-states.ts';
import { OPERATOR_IDEMPOTENCY_SCOPE } from '../idempotency/idempotency.store.ts';

export interface AuthDependencies extends KeyAuthDependencies {
  adminToken: string;
  consoleSessions: ConsoleSessions;
  /** Organization and agent states of every credential but API keys (whose lookup reads them). */
  states: OrganizationStates;
  /** The URL credentials the features issue (manifest `credentials`), by kind. */
  tokenCredentials: readonly TokenCredentialResolver[];
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A console route (decision 0211): the session cookie names a live session; a state-changing request
 * also comes from this origin (`Origin`) and carries the session's `X-CSRF-Token`.
 */
async function consoleSessionOf(request: FastifyRequest, sessions: ConsoleSessions): Promise<ConsoleSession> {
  const token = request.cookies?.[CONSOLE_COOKIE];
  const session = token ? await sessions.verify(token) : null;
  if (!session) {
    throw new AppError(
      'UNAUTHORIZED',
      'Console: no live session (open a new console link from your operator; sessions last 8 hours)',
    );
  }
  if (!SAFE_METHODS.has(request.method)) {
    const origin = firstHeader(request.headers.origin);
    const own = `${request.protocol}://${request.host}`;
    if (origin !== own)
      throw Errors.forbidden(`Console: cross-origin request refused (Origin ${origin ?? 'missing'})`);
    const csrf = firstHeader(request.headers['x-csrf-token']) ?? '';
    if (!sameSecret(csrf, session.csrfToken))
      throw Errors.forbidden('Console: missing or wrong X-CSRF-Token');
  }
  return session;
}

const CORS_EXPOSED = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Idempotent-Replayed',
].join(', ');
const CORS_ALLOWED_HEADERS = 'X-API-Key, Content-Type, Idempotency-Key';

function setLimitHeaders(reply: FastifyReply, state: RateLimitState) {
  reply.header('x-ratelimit-limit', state.limit);
  reply.header('x-ratelimit-remaining', state.remaining);
  reply.header('x-ratelimit-reset', state.resetS);
  reply.headers(rateLimitHeaders(state));
}

function setCors(reply: FastifyReply) {
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-expose-headers', CORS_EXPOSED);
}

/** Compares two secrets in constant time (their SHA-256 digests, so lengths do not show). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * The one authentication path. Routes only declare `config.auth` (v1, API key; `bearer` on the MCP
 * endpoint, which takes the same keys as a bearer token; `clientCredentials` at the OAuth token
 * endpoint, which takes them as the client's credentials), `config.admin`
 * (operator bearer token), `config.console` (the developer console's session cookie) or `config.public`; this plugin enforces it, sets the rate-limit headers,
 * answers CORS preflights for routes open to publishable keys, and binds the request logger.
 * Register it on the root instance before any route.
 */
export function registerAuth(app: FastifyInstance, deps: AuthDependencies) {
  app.decorateRequest('caller', null);
  app.decorateRequest('idempotencyScope', null);
  app.decorateRequest('rateLimit', null);
  app.decorateRequest('consoleSession', null);

  // Routes a browser may call with a publishable key: the only ones that answer preflights.
  const corsRoutes = FindMyWay({ ignoreTrailingSlash: false });
  app.addHook('onRoute', (route) => {
    if (!route.config?.auth?.keyTypes.includes('publishable')) return;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]) as HTTPMethod[];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      corsRoutes.on(method, route.url, () => undefined);
    }
  });

  /**
   * A console session's or URL credential's own request limit (its writes are few and come from
   * people: the organization's write budget is its API keys'), with the usual headers and 429.
   */
  async function countRequest(request: FastifyRequest, reply: FastifyReply, caller: Caller) {
    const state = await deps.limits.consume({ ...keyLimitsOf(caller), write: false });
    setLimitHeaders(reply, state);
    request.rateLimit = state;
  }

  const tokenResolvers = new Map(deps.tokenCredentials.map((resolver) => [resolver.kind, resolver]));

  // The one hook every request passes: request id header, then the route's credential, turned into
  // one caller whatever its kind, its organization (and agent) checked the same way (decision 0241).
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    const { config } = request.routeOptions;
    if (config.admin) {
      const header = firstHeader(request.headers.authorization) ?? '';
      const match = /^Bearer\s+(.+)$/i.exec(header);
      if (!match?.[1] || !sameSecret(match[1], deps.adminToken)) {
        reply.header('www-authenticate', 'Bearer realm="agency-crm admin"');
        throw new AppError('UNAUTHORIZED', 'Admin API: send Authorization: Bearer <ADMIN_TOKEN>');
      }
      // Under /organizations/{orgId}/ the operator acts on that organization (resolved once the
      // input is validated, below) and Idempotency-Key is scoped to it; elsewhere to the operator's own.
      const orgId = (request.params as { orgId?: string }).orgId;
      request.idempotencyScope = orgId === undefined ? OPERATOR_IDEMPOTENCY_SCOPE : orgId;
      return;
    }
    if (config.console) {
      const session = await consoleSessionOf(request, deps.consoleSessions);
      const organization = await deps.states.organization(session.organizationId);
      if (!organization) throw Errors.forbidden('This organization is not active');
      const caller = consoleCaller(session, organization);
      bindLogContext(request.log, { organizationId: session.organizationId, keyId: session.id });
      admitOrganization(caller, config.console.write);
      request.consoleSession = session;
      request.caller = caller;
      request.idempotencyScope = session.organizationId;
      await countRequest(request, reply, caller);
      return;
    }
    if (config.credential) {
      const resolver = tokenResolvers.get(config.credential.kind);
      const token = (request.params as { token?: string }).token;
      if (!resolver || token === undefined)
        throw Errors.internal(
          new Error(`route ${request.routeOptions.url} has no ${config.credential.kind} token`),
        );
      const caller = await resolveTokenCaller(resolver, token, deps.states, config.credential.write);
      bindLogContext(request.log, { organizationId: caller.organization.id, keyId: caller.keyId });
      request.caller = caller;
      request.idempotencyScope = caller.organization.id;
      await countRequest(request, reply, caller);
      return;
    }
    const auth = config.auth;
    // A token endpoint's key is in the form body: checked once it is parsed (admitClient below).
    if (!auth || auth.clientCredentials) return;
    await admitKey(request, reply, auth);
  });

  /**
   * An API key, wherever the route takes it: identified, counted against its limits, then held to the
   * route's rules; a 401 names the scheme the route wants.
   */
  async function admitKey(request: FastifyRequest, reply: FastifyReply, auth: RouteAuth) {
    if (auth.keyTypes.includes('publishable')) setCors(reply);

    let caller: Caller;
    try {
      caller = await identify(request, deps, auth);
    } catch (error) {
      if (error instanceof AppError && error.statusCode === 401) {
        reply.header('www-authenticate', challengeOf(auth));
      }
      throw error;
    }
    bindLogContext(request.log, { organizationId: caller.organization.id, keyId: caller.keyId });
    deps.verifier.touch(caller.keyId);
    // Set before the limit and scope checks, so a 429 or 403 to a known key is in the organization's
    // request log too (platform/request-logs); the route itself only runs once they pass.
    request.caller = caller;

    // Counted before the route's own rules, so every answer to a known key carries the headers.
    // A read-only key's write is refused below (403), not counted as a write.
    const state = await deps.limits.consume({
      ...keyLimitsOf(caller),
      write: auth.write && caller.keyType !== 'read_only_secret',
    });
    setLimitHeaders(reply, state);
    request.rateLimit = state;

    authorize(request, caller, auth);
    request.idempotencyScope = caller.organization.id;
  }

  // OAuth 2.0 client credentials (a token endpoint): the same admission, once the form body is parsed
  // and before it is validated, as a key in a header is admitted before validation.
  const admitClient: preValidationAsyncHookHandler = async function (request, reply) {
    const auth = request.routeOptions.config.auth;
    if (auth) await admitKey(request, reply, auth);
  };
  app.addHook('onRoute', (route) => {
    if (route.config?.auth?.clientCredentials) appendRouteHook(route, 'preValidation', admitClient);
  });

  // The operator's caller on an organization's routes: after validation (a malformed id or body is a
  // 400 first, as on every route), before the Idempotency-Key claim (route-level hooks run after).
  app.addHook('preHandler', async (request) => {
    if (!request.routeOptions.config.admin) return;
    const orgId = (request.params as { orgId?: string }).orgId;
    if (orgId === undefined) return;
    const organization = isId(orgId, 'org') ? await deps.states.organization(orgId) : null;
    if (!organization) throw Errors.notFound('Organization', orgId);
    request.caller = operatorCaller(organization);
  });

  // Preflight: answered for routes open to publishable keys, refused for the rest.
  app.options('/*', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const requested = (firstHeader(request.headers['access-control-request-method']) ?? 'GET').toUpperCase();
    if (!corsRoutes.find(requested as HTTPMethod, path)) {
      throw Errors.forbidden(
        `Cross-origin ${requested} ${path} is not allowed: CORS is open only on endpoints that accept publishable keys`,
      );
    }
    setCors(reply);
    reply.header('access-control-allow-methods', requested);
    reply.header('access-control-allow-headers', CORS_ALLOWED_HEADERS);
    reply.header('access-control-max-age', '600');
    return reply.code(204).send();
  });
}

/**
 * The rest of a batch's write points (`config.auth.batch`, decision 0183), counted once its body is
 * validated: the auth hook counted the first with the request. Register it after the idempotency
 * plugin, so its hook runs after the Idempotency-Key claim: a replay, which writes nothing, costs what
 * any replayed write costs. Refused: 429 in the usual envelope and headers, nothing of it counted.
 */
export function registerBatchCharges(app: FastifyInstance, limits: RateLimits) {
  const charge: preHandlerAsyncHookHandler = async function (request, reply) {
    const batch = request.routeOptions.config.auth?.batch;
    const { caller, rateLimit } = request;
    if (!batch || !caller || !rateLimit) return;
    const items = (request.body as Record<string, unknown> | null)?.[batch.items];
    const points = Math.ceil((Array.isArray(items) ? items.length : 0) / batch.itemsPerWritePoint) - 1;
    if (points <= 0) return;
    request.rateLimit = await limits.chargeWrites(keyLimitsOf(caller), rateLimit, points);
    setLimitHeaders(reply, request.rateLimit);
  };
  app.addHook('onRoute', (route) => {
    if (route.config?.auth?.batch) appendRouteHook(route, 'preHandler', charge);
  });
}

/** The caller of a keyed route (set by the auth hook; absent only on a misdeclared route). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw Errors.internal(new Error(`route ${request.routeOptions.url} has no caller`));
  return request.caller;
}
