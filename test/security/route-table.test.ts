/**
 * The shared security suite (STYLE.md): walks the registered route table and, for every route,
 * checks the declaration and the auth rules that follow from it. A new route is covered the day it
 * is registered; a route with path parameters must add a fixture below or this suite fails.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyType } from '../../src/platform/auth/keys.ts';
import { SCOPES } from '../../src/platform/auth/scopes.ts';
import type { RouteEntry } from '../../src/platform/http/conventions.ts';
import { createApiKey, createTenant, type Tenant } from '../helpers/factories.ts';
import type { Fixture, Fixtures } from './fixtures/types.ts';
import { admin, api, basicAuth, expectError, expectStatus } from '../helpers/http.ts';
import { buildProbeApp } from '../helpers/probe-app.ts';
import { buildTestApp } from '../helpers/test-app.ts';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

// Fixtures live one file per feature in ./fixtures (operationId -> resource of the tenant).
const fixtures: Fixtures = Object.assign(
  {},
  ...Object.values(import.meta.glob<{ fixtures: Fixtures }>('./fixtures/*.ts', { eager: true })).map(
    (module) => module.fixtures ?? {},
  ),
);

const MISSING_ID = 'id_0000000000000000000000';

function fill(url: string, params: Record<string, string> = {}): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => params[name] ?? MISSING_ID);
}

/** The ids of the keys the suites made: an OAuth client names its key by id (client_id). */
const keyIds = new Map<string, string>();

/** A token request (`auth.clientCredentials`): a form, with the key as HTTP Basic client credentials. */
function tokenRequest(app: FastifyInstance, url: string, key?: string) {
  const basic = key === undefined ? {} : { authorization: basicAuth(keyIds.get(key) ?? '', key) };
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic },
    payload: 'grant_type=client_credentials',
  });
}

/** OAuth 2.0 answers a refused client 400 `unauthorized_client` (RFC 6749 §5.2), the rest of the API 403. */
const refusedStatus = (route: RouteEntry) => (route.auth?.clientCredentials ? 400 : 403);

/**
 * A keyed call with the key where the route takes it: X-API-Key, a bearer token (MCP), or the client
 * credentials of a token request.
 */
function call(
  app: FastifyInstance,
  route: RouteEntry,
  url: string,
  options: { key?: string; body?: unknown; raw?: { payload: Buffer; headers: Record<string, string> } },
) {
  const { key, raw } = options;
  const body = raw?.payload ?? options.body;
  const headers = raw?.headers ?? {};
  if (route.auth?.clientCredentials) return tokenRequest(app, url, key);
  if (route.auth?.bearer && key !== undefined)
    return api(app, route.method as Method, url, {
      headers: { ...headers, authorization: `Bearer ${key}` },
      body,
    });
  return api(app, route.method as Method, url, { key, body, headers });
}

function suite(name: string, build: () => Promise<FastifyInstance>) {
  describe(name, () => {
    let app: FastifyInstance;
    let mine: Tenant;
    let theirs: Tenant;
    const keyOfType = new Map<KeyType, string>();
    const noScopeKey = new Map<KeyType, string>();

    beforeAll(async () => {
      app = await build();
      mine = await createTenant(app, {
        secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 },
      });
      theirs = await createTenant(app, {
        secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 },
      });
      keyOfType
        .set('secret', mine.secret.key)
        .set('publishable', mine.publishable.key)
        .set('read_only_secret', mine.readOnly.key);
      for (const made of [mine.secret, mine.publishable, mine.readOnly]) keyIds.set(made.key, made.id);
      for (const type of ['secret', 'publishable', 'read_only_secret'] as const) {
        const made = await createApiKey(app, mine.org.id, {
          type,
          scopes: [],
          rateLimitPerMinute: 100_000,
          ...(type === 'read_only_secret' ? {} : { writeLimitPerMinute: 100_000 }),
        });
        noScopeKey.set(type, made.key);
        keyIds.set(made.key, made.id);
      }
    });
    afterAll(async () => {
      await app.close();
    });

    const routes = async (): Promise<RouteEntry[]> => app.routeTable.filter((route) => !route.hidden);

    it('declares an operationId, who may call it, and a 2xx response schema on every route', async () => {
      for (const route of await routes()) {
        const where = `${route.method} ${route.url}`;
        expect(route.operationId, where).toBeTruthy();
        expect(
          route.kind,
          `${where} declares config.auth, config.admin, config.console, config.credential or config.public`,
        ).toBeDefined();
        expect(route.hasResponseSchema, where).toBe(true);
        // Under /v1 only keyed routes, but the description and the routes whose URL carries its own
        // credential (a visitor's manage link: a token the service signed, decision 0237), resolved and
        // checked at the edge like a key (decision 0241).
        if (route.url.startsWith('/v1/') && route.url !== '/v1/openapi.json')
          expect(route.kind, where).toBe(route.url.includes('/:token') ? 'token' : 'keyed');
        // A URL that carries a token is never public: its token is a credential.
        if (route.url.includes(':token')) expect(route.kind, where).toBe('token');
        if (route.url.startsWith('/admin/')) expect(route.kind, where).toBe('admin');
        if (route.kind === 'keyed') {
          expect(route.auth?.keyTypes.length, where).toBeGreaterThan(0);
          expect(route.auth?.scope === null || SCOPES.includes(route.auth?.scope as never), where).toBe(true);
          if (route.pathParams.length > 0) {
            expect(
              fixtures[route.operationId as string],
              `${where} takes an id: add a fixture to the security suite`,
            ).toBeDefined();
          }
        }
      }
    });

    it('answers 401 to every keyed route without a key, and to every admin route without the token', async () => {
      for (const route of await routes()) {
        // A URL credential that is missing or wrong is a 404 (the credential matrix proves it).
        if (route.kind === 'public' || route.kind === 'token') continue;
        const where = `${route.method} ${route.url}`;
        if (route.auth?.clientCredentials) {
          // A token endpoint answers OAuth's 401 (RFC 6749 §5.2), with the HTTP Basic challenge.
          const response = await tokenRequest(app, fill(route.url));
          expect(response.statusCode, `${where}: ${response.body}`).toBe(401);
          expect(response.json().error, where).toBe('invalid_client');
          expect(response.headers['www-authenticate'], where).toMatch(/^Basic realm=/);
          continue;
        }
        const response = await app.inject({
          method: route.method as Method,
          url: fill(route.url),
          payload: route.method === 'GET' ? undefined : {},
        });
        expectError(response, 401, 'UNAUTHORIZED');
        // RFC 9110: every 401 names the scheme it wants.
        const scheme =
          route.kind === 'admin' || route.auth?.bearer ? /^Bearer realm=/ : /^ApiKey .*name="X-API-Key"/;
        expect(response.headers['www-authenticate'], `${route.method} ${route.url}`).toMatch(scheme);
      }
    });

    it('answers 405 with Allow to every method a known path does not serve, without a key', async () => {
      const patterns = (method: string) =>
        app.routeTable
          .filter((route) => route.method === method && !route.url.includes('*'))
          // Literal characters escaped first: OData's key syntax has parentheses (`Property(':ListingKey')`).
          .map(
            (route) =>
              new RegExp(
                `^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`,
              ),
          );
      for (const url of new Set(app.routeTable.map((route) => route.url))) {
        if (url.includes('*')) continue;
        const path = fill(url);
        // What serves this path, by any route's pattern (GET .../properties/import is GET .../properties/:id);
        // Fastify answers HEAD wherever GET is served (the table lists GET only).
        const serving = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) =>
          patterns(m).some((p) => p.test(path)),
        );
        const allowed = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter(
          (m) => serving.includes(m) || (m === 'HEAD' && serving.includes('GET')),
        );
        for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
          if (serving.includes(method)) continue;
          const response = await app.inject({ method, url: path });
          const error = expectError(response, 405, 'METHOD_NOT_ALLOWED');
          expect(response.headers.allow, `${method} ${url}`).toBe(allowed.join(', '));
          expect(error.message).toContain(`use ${allowed.join(', ')}`);
        }
      }
    });

    it('answers 403 to a key type the route does not take', async () => {
      for (const route of (await routes()).filter((r) => r.kind === 'keyed')) {
        for (const [type, key] of keyOfType) {
          if (route.auth?.keyTypes.includes(type) && !(route.auth.write && type === 'read_only_secret'))
            continue;
          const response = await call(app, route, fill(route.url), {
            key,
            body: route.method === 'GET' ? undefined : {},
          });
          expect(response.statusCode, `${type} key on ${route.method} ${route.url}: ${response.body}`).toBe(
            refusedStatus(route),
          );
        }
      }
    });

    it('answers 403 FORBIDDEN to a key of an accepted type without the scope', async () => {
      for (const route of (await routes()).filter((r) => r.kind === 'keyed' && r.auth?.scope)) {
        for (const type of route.auth?.keyTypes ?? []) {
          const response = await call(app, route, fill(route.url), {
            key: noScopeKey.get(type),
            body: route.method === 'GET' ? undefined : {},
          });
          const error = expectError(response, 403, 'FORBIDDEN');
          if (!(route.auth?.write && type === 'read_only_secret'))
            expect(error.message).toContain(route.auth?.scope as string);
        }
      }
    });

    it('answers 402 to every write of a read-only organization', async () => {
      // Fast keys: every write route is called once, more than the default 30 writes a minute.
      const frozen = await createTenant(app, {
        secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 },
      });
      expectStatus(
        await admin(app, 'PATCH', `/admin/v1/organizations/${frozen.org.id}`, { readOnly: true }),
        200,
      );
      for (const route of (await routes()).filter((r) => r.kind === 'keyed' && r.auth?.write)) {
        const type = route.auth?.keyTypes.includes('secret') ? frozen.secret.key : frozen.publishable.key;
        const response = await call(app, route, fill(route.url), { key: type, body: {} });
        expectError(response, 402, 'PAYMENT_REQUIRED');
      }
    });

    it("answers 404 when a key asks for another tenant's resource, exactly as for a missing one", async () => {
      for (const route of (await routes()).filter((r) => r.kind === 'keyed' && r.pathParams.length > 0)) {
        const { params, body, raw, shared, keep } = await (fixtures[route.operationId as string] as Fixture)(
          app,
          mine,
        );
        const key = route.auth?.keyTypes.includes('secret') ? 'secret' : 'publishable';
        const own = await call(app, route, fill(route.url, params), {
          key: mine[key].key,
          body,
          raw,
        });
        expect(own.statusCode, `${route.url} with its owner's key: ${own.body}`).toBeLessThan(300);
        if (shared) continue;
        const foreign = await call(app, route, fill(route.url, params), {
          key: theirs[key].key,
          body,
          raw,
        });
        const foreignError = expectError(foreign, 404, 'NOT_FOUND');
        const missing = await call(app, route, fill(route.url, keep), {
          key: theirs[key].key,
          body,
          raw,
        });
        // Same message but for the identifier itself: nothing tells "not yours" from "not there".
        const anonymous = (message: string, values: string[]) =>
          values.reduce((text, value) => text.replaceAll(value, 'ID'), message);
        expect(anonymous(expectError(missing, 404, 'NOT_FOUND').message, [MISSING_ID])).toBe(
          anonymous(foreignError.message, Object.values(params)),
        );
      }
    });
  });
}

suite('the service routes', () => buildTestApp());
suite('the probe routes (proves the suite on a write route and a route with an id)', () => buildProbeApp());
