/**
 * POST /oauth/token (RFC 6749 §4.4, decision 0262): an API key's client credentials, in HTTP Basic or in
 * the form, give the key itself as the access token, which the RESO routes take as a bearer token. The
 * key is admitted by the one auth path (state, type, expiry, IP block, rate limits); every failure is an
 * OAuth error answer; no credential reaches the log.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { admin, api, basicAuth, expectStatus } from '../../helpers/http.ts';
import { captureLogs } from '../../helpers/log-capture.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { createListing, type ResoPage } from '../reso/support.ts';

const FORM = 'application/x-www-form-urlencoded';

let app: FastifyInstance;
const logs = captureLogs();
let agency: SpanishAgency;
let other: SpanishAgency;
let mine: { id: string };
let theirs: { id: string };
/** Every key the file made: none may appear in the log. */
const made = new Set<string>();

beforeAll(async () => {
  app = await buildTestApp(
    { LOG_LEVEL: 'info', AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW_S: '60', AUTH_FAILURE_BLOCK_S: '120' },
    { db: await testDatabase(), logStream: logs.stream },
  );
  agency = await createTenant(app, SPANISH_AGENCY);
  other = await createTenant(app, SPANISH_AGENCY);
  for (const key of [agency.secret, agency.readOnly, agency.publishable, other.secret]) made.add(key.key);
  mine = await createListing(app, agency);
  theirs = await createListing(app, other, { city: 'Elsewhere' });
});

afterAll(async () => {
  await app.close();
});

/** Each request from an address of its own, unless told: the IP block (3 failures) is tested alone. */
let addresses = 0;
const nextAddress = () => {
  addresses += 1;
  return `10.77.${addresses >> 8}.${addresses & 255}`;
};

interface TokenCall {
  /** The form, as sent (encoded here unless it is a string). */
  form?: Record<string, string> | string;
  /** HTTP Basic client credentials: [client_id, client_secret]. */
  basic?: [string, string];
  headers?: Record<string, string>;
  ip?: string;
}

function token({ form = {}, basic, headers = {}, ip = nextAddress() }: TokenCall) {
  return app.inject({
    method: 'POST',
    url: '/oauth/token',
    remoteAddress: ip,
    headers: {
      'content-type': FORM,
      ...(basic ? { authorization: basicAuth(basic[0], basic[1]) } : {}),
      ...headers,
    },
    payload: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
  });
}

const GRANT = { grant_type: 'client_credentials' };
const asBasic = (key: { id: string; key: string }): [string, string] => [key.id, key.key];

/** An OAuth error answer (RFC 6749 §5.2): the status, the code, nothing beside error and its description. */
function oauthError(response: LightMyRequestResponse, status: number, error: string): string {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body, response.body).toEqual({ error, error_description: expect.any(String) });
  expect(body.error_description).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
  expect(response.headers['x-request-id']).toMatch(/^req_/);
  expect(response.headers['cache-control']).toBe('no-store');
  return body.error_description as string;
}

const resoWith = (bearer: string, path = '/v1/reso/Property?$top=1000') =>
  app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${bearer}` } });

describe('the client credentials grant', () => {
  it('gives the secret key as a bearer token for credentials in HTTP Basic, which RESO then takes', async () => {
    const response = await token({ form: GRANT, basic: asBasic(agency.secret) });
    const answer = expectStatus(response, 200);
    expect(answer).toEqual({
      access_token: agency.secret.key,
      token_type: 'Bearer',
      scope: agency.secret.scopes.join(' '),
    });
    // RFC 6749 §5.1: no cache keeps a token; the answer counts against the key like any request.
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.pragma).toBe('no-cache');
    expect(response.headers['x-ratelimit-limit']).toBeDefined();
    expect(response.headers['x-request-id']).toMatch(/^req_/);

    const page = expectStatus(await resoWith(answer.access_token), 200) as ResoPage;
    expect(page.value.map((record) => record.ListingKey)).toContain(mine.id);
  });

  it('takes the credentials in the form too, and a read-only key with listings:read', async () => {
    const form = { ...GRANT, client_id: agency.readOnly.id, client_secret: agency.readOnly.key };
    const charset = { 'content-type': `${FORM}; charset=UTF-8` };
    const answer = expectStatus(await token({ form, headers: charset }), 200);
    expect(answer.access_token).toBe(agency.readOnly.key);
    expect(answer.scope.split(' ')).toContain('listings:read');
    expect(answer.scope.split(' ').every((scope: string) => scope.endsWith(':read'))).toBe(true);
    expectStatus(await resoWith(answer.access_token), 200);
    // Form-encoded inside Basic (RFC 6749 §2.3.1) reads the same.
    const encoded = await token({
      form: GRANT,
      basic: [encodeURIComponent(agency.readOnly.id), agency.readOnly.key],
    });
    expectStatus(encoded, 200);
  });

  it("says when the key expires, and accepts a scope the key holds (the token is still the whole key's)", async () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const expiring = await createApiKey(app, agency.org.id, { type: 'secret', expiresAt });
    made.add(expiring.key);
    const answer = expectStatus(
      await token({ form: { ...GRANT, scope: 'listings:read' }, basic: asBasic(expiring) }),
      200,
    );
    expect(answer.expires_in).toBeGreaterThan(3_500);
    expect(answer.expires_in).toBeLessThanOrEqual(3_600);
    expect(answer.scope).toBe(expiring.scopes.join(' '));
  });

  it("reads only the token's own organization's listings", async () => {
    const answer = expectStatus(await token({ form: GRANT, basic: asBasic(other.secret) }), 200);
    const page = expectStatus(await resoWith(answer.access_token), 200) as ResoPage;
    const keys = page.value.map((record) => record.ListingKey);
    expect(keys).toContain(theirs.id);
    expect(keys).not.toContain(mine.id);
    const foreign = await resoWith(answer.access_token, `/v1/reso/Property('${mine.id}')`);
    expect(foreign.statusCode, foreign.body).toBe(404);
  });
});

describe('a request OAuth refuses', () => {
  it('is invalid_request when a parameter is missing or repeated, or the body is not a form', async () => {
    const basic = asBasic(agency.secret);
    expect(oauthError(await token({ basic }), 400, 'invalid_request')).toContain('body.grant_type');
    const repeated = await token({ form: 'grant_type=client_credentials&scope=a&scope=b', basic });
    expect(oauthError(repeated, 400, 'invalid_request')).toContain('body.scope is repeated');
    // JSON is refused: RFC 6749 §4.4.2 sends a form, and every OAuth client does.
    const json = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/json', authorization: basicAuth(...basic) },
      payload: JSON.stringify(GRANT),
    });
    expect(oauthError(json, 400, 'invalid_request')).toContain('application/x-www-form-urlencoded');
    // One way to authenticate per request (§2.3), and a secret in the form names its key.
    const both = await token({ form: { ...GRANT, client_secret: agency.secret.key }, basic });
    expect(oauthError(both, 400, 'invalid_request')).toContain('body.client_secret');
    const noId = await token({ form: { ...GRANT, client_secret: agency.secret.key } });
    expect(oauthError(noId, 400, 'invalid_request')).toContain('body.client_id');
  });

  it('is unsupported_grant_type for another grant, invalid_scope for a scope the key lacks', async () => {
    const basic = asBasic(agency.readOnly);
    const password = await token({ form: { grant_type: 'password', username: 'a', password: 'b' }, basic });
    expect(oauthError(password, 400, 'unsupported_grant_type')).toContain('client_credentials');
    const wider = await token({ form: { ...GRANT, scope: 'listings:read listings:write' }, basic });
    expect(oauthError(wider, 400, 'invalid_scope')).toContain('listings:write');
    oauthError(await token({ form: { ...GRANT, scope: 'everything' }, basic }), 400, 'invalid_scope');
  });

  it('is a 401 invalid_client with the Basic challenge for no, a wrong or a foreign credential', async () => {
    const none = await token({ form: GRANT });
    oauthError(none, 401, 'invalid_client');
    expect(none.headers['www-authenticate']).toMatch(/^Basic realm="agency-crm"/);
    const tampered = `${agency.secret.key.slice(0, -1)}${agency.secret.key.endsWith('A') ? 'B' : 'A'}`;
    const wrong = await token({ form: GRANT, basic: [agency.secret.id, tampered] });
    oauthError(wrong, 401, 'invalid_client');
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic realm=/);
    // The id of another key: the secret is right, the client named is not its key.
    const mismatched = await token({ form: GRANT, basic: [agency.readOnly.id, agency.secret.key] });
    expect(oauthError(mismatched, 401, 'invalid_client')).toContain('client_id');
    oauthError(await token({ form: GRANT, headers: { authorization: 'Basic !!!' } }), 401, 'invalid_client');
    // A key in X-API-Key is no client authentication here.
    oauthError(
      await token({ form: GRANT, headers: { 'x-api-key': agency.secret.key } }),
      401,
      'invalid_client',
    );
  });

  it('counts failed client authentications toward the IP block of invalid keys', async () => {
    const ip = '10.78.0.1';
    for (let i = 0; i < 3; i += 1) {
      oauthError(
        await token({ form: GRANT, basic: ['key_x', 'service_sk_live_nope'], ip }),
        401,
        'invalid_client',
      );
    }
    const blocked = await token({ form: GRANT, basic: asBasic(agency.secret), ip });
    expect(oauthError(blocked, 429, 'rate_limited')).toContain('invalid API keys');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // The same block as the key path's: the address is blocked on /v1 as well.
    const me = await api(app, 'GET', '/v1/me', { key: agency.secret.key, remoteAddress: ip });
    expect(me.statusCode, me.body).toBe(429);
  });

  it("applies the key's rate limit", async () => {
    const slow = await createApiKey(app, agency.org.id, { type: 'secret', rateLimitPerMinute: 2 });
    made.add(slow.key);
    for (let i = 0; i < 2; i += 1) expectStatus(await token({ form: GRANT, basic: asBasic(slow) }), 200);
    const limited = await token({ form: GRANT, basic: asBasic(slow) });
    oauthError(limited, 429, 'rate_limited');
    expect(limited.headers['retry-after']).toBeDefined();
  });
});

describe('keys the auth path refuses', () => {
  it('refuses a publishable key and a suspended one (unauthorized_client), a revoked one (invalid_client)', async () => {
    const publishable = await token({ form: GRANT, basic: asBasic(agency.publishable) });
    expect(oauthError(publishable, 400, 'unauthorized_client')).toContain('Publishable keys');

    const suspended = await createApiKey(app, agency.org.id, { type: 'secret' });
    const revoked = await createApiKey(app, agency.org.id, { type: 'secret' });
    made.add(suspended.key).add(revoked.key);
    const granted = expectStatus(await token({ form: GRANT, basic: asBasic(revoked) }), 200);
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/api-keys/${suspended.id}`, { status: 'suspended' }),
      200,
    );
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/api-keys/${revoked.id}`, { status: 'deactivated' }),
      200,
    );
    oauthError(await token({ form: GRANT, basic: asBasic(suspended) }), 400, 'unauthorized_client');
    expect(
      oauthError(await token({ form: GRANT, basic: asBasic(revoked) }), 401, 'invalid_client'),
    ).toContain('deactivated');
    // The token is the key: revoking the key revoked the token handed out before.
    expect((await resoWith(granted.access_token)).statusCode).toBe(401);
  });

  it("refuses every key of an inactive organization, and serves a read-only one's (a token is no write)", async () => {
    const frozen = await createTenant(app, SPANISH_AGENCY);
    made.add(frozen.secret.key);
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${frozen.org.id}`, { readOnly: true }),
      200,
    );
    expectStatus(await token({ form: GRANT, basic: asBasic(frozen.secret) }), 200);
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${frozen.org.id}`, { isActive: false }),
      200,
    );
    const inactive = await token({ form: GRANT, basic: asBasic(frozen.secret) });
    expect(oauthError(inactive, 400, 'unauthorized_client')).toContain('not active');
  });

  it("is in the organization's request log, refusals of a known key too", async () => {
    const granted = await token({ form: GRANT, basic: asBasic(agency.secret) });
    const refused = await token({ form: { ...GRANT, scope: 'nope' }, basic: asBasic(agency.secret) });
    await app.requestLogs.flush();
    for (const [response, status] of [
      [granted, 200],
      [refused, 400],
    ] as const) {
      const logged = await admin(
        app,
        'GET',
        `/admin/v1/organizations/${agency.org.id}/request-logs?requestId=${String(response.headers['x-request-id'])}`,
      );
      expect(expectStatus(logged, 200).data).toEqual([
        expect.objectContaining({
          path: '/oauth/token',
          operationId: 'oauth.token.issue',
          keyId: agency.secret.id,
          status,
        }),
      ]);
    }
  });

  it('writes no key to the log, whether it came in Basic, in the form or in the answer', () => {
    expect(logs.text()).toContain('/oauth/token');
    expect([...made].filter((key) => logs.text().includes(key))).toEqual([]);
  });
});
