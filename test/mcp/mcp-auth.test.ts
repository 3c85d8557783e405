import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/platform/auth/keys.ts';
import { createApiKey, createTenant, type Tenant } from '../helpers/factories.ts';
import { admin, expectStatus } from '../helpers/http.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { bearer, connect, listen, post } from './support.ts';

let app: FastifyInstance;
let url: URL;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp();
  url = await listen(app);
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

/** The error envelope of a refused MCP request, with its status checked. */
async function refused(response: Response, status: number, code: string) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  const body = JSON.parse(text) as {
    error: { code: string; message: string; requestId: string; details?: unknown };
  };
  expect(body.error.code, text).toBe(code);
  expect(body.error.requestId).toBe(response.headers.get('x-request-id'));
  return body.error;
}

/** RFC 6750: every 401 of a bearer endpoint names the scheme. */
function expectBearerChallenge(response: Response) {
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="agency-crm mcp"/);
}

describe('POST /mcp accepts', () => {
  it('a secret key as a bearer token, with the request id and rate-limit headers of every keyed answer', async () => {
    const response = await post(url, bearer(tenant.secret.key));
    const body = (await response.json()) as { result: { serverInfo: { name: string } } };
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(body.result.serverInfo.name).toBe('agency-crm');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(response.headers.get('mcp-session-id')).toBeNull();
  });

  it('a read-only secret key', async () => {
    expect((await post(url, bearer(tenant.readOnly.key))).status).toBe(200);
  });

  it('the Sec-Fetch-Mode header Node and the SDK send (only Origin and Sec-Fetch-Site mean a browser)', async () => {
    const response = await post(url, { ...bearer(tenant.secret.key), 'sec-fetch-mode': 'cors' });
    expect(response.status).toBe(200);
  });

  it('an Idempotency-Key without storing or replaying anything: JSON-RPC calls are not resource creations', async () => {
    const headers = { ...bearer(tenant.secret.key), 'idempotency-key': 'mcp-idempotency-check-1' };
    const first = await post(url, headers);
    const second = await post(url, headers, { jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(await second.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });
});

describe('POST /mcp refuses with 401 and WWW-Authenticate: Bearer', () => {
  it('a request without Authorization', async () => {
    const response = await post(url, {});
    const error = await refused(response, 401, 'UNAUTHORIZED');
    expect(error.message).toMatch(/Authorization: Bearer/);
    expectBearerChallenge(response);
  });

  it('a key in X-API-Key, even a valid one, and says to use the bearer header', async () => {
    const response = await post(url, { 'x-api-key': tenant.secret.key });
    const error = await refused(response, 401, 'UNAUTHORIZED');
    expect(error.message).toMatch(/X-API-Key is not accepted on the MCP endpoint/);
    expectBearerChallenge(response);
  });

  it('another scheme than Bearer', async () => {
    const response = await post(url, { authorization: `Basic ${tenant.secret.key}` });
    await refused(response, 401, 'UNAUTHORIZED');
    expectBearerChallenge(response);
  });

  it('an unknown key', async () => {
    const response = await post(url, bearer(generateKey('secret', 'live')));
    const error = await refused(response, 401, 'UNAUTHORIZED');
    expect(error.message).toBe('Invalid API key');
    expectBearerChallenge(response);
  });

  it('a deactivated key', async () => {
    const key = await createApiKey(app, tenant.org.id, { type: 'secret' });
    expect((await post(url, bearer(key.key))).status).toBe(200);
    expectStatus(await admin(app, 'PATCH', `/admin/v1/api-keys/${key.id}`, { status: 'deactivated' }), 200);
    const response = await post(url, bearer(key.key));
    expect((await refused(response, 401, 'UNAUTHORIZED')).message).toMatch(/deactivated/);
    expectBearerChallenge(response);
  });

  it('an expired key', async () => {
    const key = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    });
    expect((await post(url, bearer(key.key))).status).toBe(200);
    await sleep(1600);
    const response = await post(url, bearer(key.key));
    expect((await refused(response, 401, 'UNAUTHORIZED')).message).toMatch(/expired/);
    expectBearerChallenge(response);
  });

  it('through the SDK client too: connecting fails with the 401', async () => {
    await expect(connect(url, generateKey('secret', 'live'))).rejects.toThrow(
      /401|Unauthorized|Invalid API key/i,
    );
  });
});

describe('POST /mcp refuses with 403', () => {
  it('a suspended key, and takes it again once reactivated', async () => {
    const key = await createApiKey(app, tenant.org.id, { type: 'secret' });
    expectStatus(await admin(app, 'PATCH', `/admin/v1/api-keys/${key.id}`, { status: 'suspended' }), 200);
    const response = await post(url, bearer(key.key));
    expect((await refused(response, 403, 'FORBIDDEN')).message).toMatch(/suspended/);
    expect(response.headers.get('www-authenticate')).toBeNull();
    expectStatus(await admin(app, 'PATCH', `/admin/v1/api-keys/${key.id}`, { status: 'active' }), 200);
    expect((await post(url, bearer(key.key))).status).toBe(200);
  });

  it('a publishable key', async () => {
    const error = await refused(await post(url, bearer(tenant.publishable.key)), 403, 'FORBIDDEN');
    expect(error.message).toMatch(/Publishable keys/);
  });

  it('a secret key sent from a browser page (Origin)', async () => {
    const response = await post(url, { ...bearer(tenant.secret.key), origin: 'https://example.com' });
    await refused(response, 403, 'SECRET_KEY_IN_BROWSER');
  });
});

describe('limits', () => {
  it("counts every MCP call against the key's rate limit: 429 with Retry-After past it", async () => {
    const key = await createApiKey(app, tenant.org.id, { type: 'secret', rateLimitPerMinute: 2 });
    expect((await post(url, bearer(key.key))).status).toBe(200);
    const second = await post(url, bearer(key.key), { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-ratelimit-remaining')).toBe('0');
    const third = await post(url, bearer(key.key), { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    await refused(third, 429, 'RATE_LIMITED');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('blocks an address after repeated invalid keys, valid keys included, like the REST API', async () => {
    const strict = await buildTestApp({ AUTH_FAILURE_LIMIT: '2', AUTH_FAILURE_BLOCK_S: '60' });
    try {
      const strictUrl = await listen(strict);
      const owner = await createTenant(strict);
      for (let i = 0; i < 2; i += 1) {
        await refused(await post(strictUrl, bearer(generateKey('secret', 'live'))), 401, 'UNAUTHORIZED');
      }
      const blocked = await post(strictUrl, bearer(owner.secret.key));
      expect((await refused(blocked, 429, 'RATE_LIMITED')).message).toMatch(/invalid API keys/);
    } finally {
      await strict.close();
    }
  });
});

describe('other methods and malformed messages', () => {
  it.each(['GET', 'DELETE'])(
    'answers %s /mcp with 405 and Allow: POST, with or without a key',
    async (method) => {
      for (const headers of [{}, bearer(tenant.secret.key)]) {
        const response = await fetch(url, { method, headers });
        const error = await refused(response, 405, 'METHOD_NOT_ALLOWED');
        expect(error.message).toMatch(/use POST/);
        expect(response.headers.get('allow')).toBe('POST');
      }
    },
  );

  it('refuses a body that is not a JSON-RPC 2.0 message with a 400 naming the field', async () => {
    const response = await post(url, bearer(tenant.secret.key), { jsonrpc: '1.0', id: 1, method: 'ping' });
    const error = await refused(response, 400, 'VALIDATION_ERROR');
    expect(error.message).toMatch(/body\.jsonrpc/);
  });

  it.each([
    ['neither method, result nor error', { jsonrpc: '2.0', id: 1 }],
    ['a result without an id', { jsonrpc: '2.0', result: {} }],
    ['an error without a code', { jsonrpc: '2.0', id: 1, error: { message: 'no code' } }],
  ])(
    'refuses a message with %s in the error envelope (the SDK would answer its own 400)',
    async (_, message) => {
      const response = await post(url, bearer(tenant.secret.key), message);
      const error = await refused(response, 400, 'VALIDATION_ERROR');
      expect(error.message).toMatch(/not a JSON-RPC 2\.0 message/);
      expect(error.details).toEqual([
        { field: 'body', message: expect.stringMatching(/request, notification/) },
      ]);
    },
  );

  it("answers the SDK's JSON-RPC error to an unknown method, not a 500", async () => {
    const response = await post(url, bearer(tenant.secret.key), {
      jsonrpc: '2.0',
      id: 9,
      method: 'resources/list',
    });
    const body = (await response.json()) as { error?: { code: number } };
    expect(response.status).toBe(200);
    expect(body.error?.code).toBe(-32601);
  });
});
