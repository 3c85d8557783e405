// The API key's path through the auth hook (auth.plugin.ts): where the route takes the key, who it is,
// and what the route lets it do. Every way a key is presented (X-API-Key, a bearer token, OAuth 2.0
// client credentials) ends in the same `identify` and `authorize`.
import type { FastifyRequest } from 'fastify';
import { Errors, type AppError } from '../errors/errors.ts';
import type { RouteAuth } from '../http/route-config.ts';
import type { RateLimits } from '../rate-limit/rate-limits.ts';
import type { Caller } from './caller.ts';
import { admitAgent, admitOrganization } from './credentials.ts';
import { clientCredentialsOf } from './client-credentials.ts';
import type { KeyVerifier } from './key-verifier.ts';
import { planRefusal } from './plans.ts';
import { PUBLISHABLE_SCOPES } from './scopes.ts';

export interface KeyAuthDependencies {
  verifier: KeyVerifier;
  limits: RateLimits;
}

/** A key as the request presented it. */
export interface PresentedKey {
  key: string;
  /** The key's id the client named beside it (OAuth's `client_id`): it must be this key's. */
  id?: string;
}

export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Headers only browsers send. Not Sec-Fetch-Mode: Node's own fetch sends it too (DESIGN.md). */
function fromBrowser(request: FastifyRequest): boolean {
  return request.headers.origin !== undefined || request.headers['sec-fetch-site'] !== undefined;
}

function keyTypeRefusal(caller: Caller, auth: RouteAuth): AppError {
  if (caller.keyType === 'publishable') {
    return Errors.forbidden(
      `Publishable keys can only call public portal endpoints; this key may use the scopes ${PUBLISHABLE_SCOPES.join(', ')}. Use a secret key from your server for this endpoint.`,
    );
  }
  if (auth.keyTypes.length === 1 && auth.keyTypes[0] === 'publishable') {
    return Errors.forbidden('This endpoint takes a publishable key (service_pk_…)');
  }
  return Errors.forbidden('Read-only keys cannot call this endpoint');
}

/**
 * The key from where the route takes it: X-API-Key, a bearer token (MCP), either (a route with
 * `alsoBearer`: X-API-Key first), or OAuth 2.0 client credentials (the token endpoint); 401 when absent.
 */
function presentedKey(request: FastifyRequest, auth: RouteAuth): PresentedKey {
  if (auth.clientCredentials) return clientCredentialsOf(request);
  const authorization = firstHeader(request.headers.authorization) ?? '';
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (auth.bearer) {
    if (bearer === undefined) throw Errors.missingBearer(request.headers['x-api-key'] !== undefined);
    return { key: bearer };
  }
  const key = firstHeader(request.headers['x-api-key']);
  if (key !== undefined && key !== '') return { key };
  if (auth.alsoBearer && bearer !== undefined) return { key: bearer };
  throw auth.alsoBearer ? Errors.missingKeyOrBearer() : Errors.missingKey(/^bearer\s/i.test(authorization));
}

/**
 * Resolves the key to a caller: IP block (429), key missing, unknown, not the `client_id` named,
 * deactivated or expired (401, each counted toward the IP block), suspended key, inactive organization
 * or agent, plan without API access (403).
 */
export async function identify(
  request: FastifyRequest,
  deps: KeyAuthDependencies,
  auth: RouteAuth,
): Promise<Caller> {
  const blockedFor = await deps.limits.blockedFor(request.ip);
  if (blockedFor > 0) {
    throw Errors.rateLimited(
      `Too many requests with invalid API keys from this address; try again in ${blockedFor} s`,
      blockedFor,
    );
  }

  const presented = presentedKey(request, auth);

  const found = deps.verifier.lookup(presented.key);
  const lookup = found instanceof Promise ? await found : found;
  if (lookup.outcome === 'unknown') {
    await deps.limits.recordAuthFailure(request.ip);
    throw Errors.invalidKey();
  }
  if (presented.id !== undefined && presented.id !== lookup.caller.keyId) {
    await deps.limits.recordAuthFailure(request.ip);
    throw Errors.wrongClientId();
  }
  if (lookup.status === 'deactivated') {
    await deps.limits.recordAuthFailure(request.ip);
    throw Errors.deactivatedKey();
  }
  if (lookup.expiresAt !== null && lookup.expiresAt.getTime() <= Date.now()) {
    await deps.limits.recordAuthFailure(request.ip);
    throw Errors.expiredKey();
  }
  const { caller } = lookup;
  if (lookup.status === 'suspended') throw Errors.suspendedKey();
  admitOrganization(caller, false);
  if (!lookup.agentActive) admitAgent(false);
  const planProblem = planRefusal(caller.organization.plan, caller.keyType);
  if (planProblem) throw Errors.forbidden(planProblem);
  return caller;
}

/**
 * Applies what the route declares, in a fixed order: browser use of a secret key, key type,
 * read-only key on a write, scope, access level (403), read-only organization (402).
 */
export function authorize(request: FastifyRequest, caller: Caller, auth: RouteAuth): void {
  if (caller.keyType !== 'publishable' && fromBrowser(request)) throw Errors.secretKeyInBrowser();
  if (!auth.keyTypes.includes(caller.keyType)) throw keyTypeRefusal(caller, auth);
  if (auth.write && caller.keyType === 'read_only_secret') {
    throw Errors.forbidden('Read-only keys cannot make changes');
  }
  if (auth.scope !== null && !caller.scopes.includes(auth.scope)) {
    throw Errors.forbidden(`This API key lacks the scope ${auth.scope}`);
  }
  const level = auth.accessLevel ?? 1;
  if (caller.accessLevel < level) {
    throw Errors.forbidden(
      `This operation needs access level ${level} (granted after support review); this key has level ${caller.accessLevel}`,
    );
  }
  admitOrganization(caller, auth.write);
}

/**
 * The challenge of a REST 401: no registered scheme carries a key in a header of its own, so this names
 * one as OpenAPI's `apiKey` security scheme describes it (in, name).
 */
const API_KEY_CHALLENGE = 'ApiKey realm="agency-crm", in="header", name="X-API-Key"';

/**
 * RFC 9110 11.6.1: every 401 names the scheme it wants: RFC 6750's Bearer on the MCP endpoint, HTTP
 * Basic at the OAuth token endpoint (RFC 6749 §5.2), the key header elsewhere (and Bearer beside it).
 */
export function challengeOf(auth: RouteAuth): string {
  if (auth.bearer) return 'Bearer realm="agency-crm mcp"';
  if (auth.clientCredentials) return 'Basic realm="agency-crm", charset="UTF-8"';
  return auth.alsoBearer ? `${API_KEY_CHALLENGE}, Bearer realm="agency-crm"` : API_KEY_CHALLENGE;
}
