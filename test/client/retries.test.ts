/**
 * The client's retries against a listening server, through a local proxy that fails chosen
 * requests: network errors, timeouts, 429 (Retry-After honoured) and 5xx are retried with the same
 * Idempotency-Key; other errors are not; the caller's signal stops everything.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiConnectionError, ApiError, type Client } from '../../clients/typescript/src/index.ts';
import { createApiKey, createTenant, nextPhone, type Tenant } from '../helpers/factories.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { clientFor, envelope, FaultProxy, listen } from './support.ts';

let app: FastifyInstance;
let proxy: FaultProxy;
let tenant: Tenant;
let client: Client;

beforeAll(async () => {
  app = await buildTestApp();
  proxy = await new FaultProxy(await listen(app)).start();
  tenant = await createTenant(app, {
    secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 },
  });
  client = clientFor(proxy.url, tenant.secret.key);
});
afterAll(async () => {
  await proxy.close();
  await app.close();
});

const gaps = () => proxy.requests.slice(1).map((request, i) => request.at - (proxy.requests[i]?.at ?? 0));

describe('retried', () => {
  it('a POST whose answer was lost: the retry carries the same Idempotency-Key and gets the original answer', async () => {
    const phone = nextPhone();
    proxy.failNext('reset-after');
    const created = await client.contacts.create({ firstName: 'Lost', phone });
    expect(proxy.requests.map((request) => request.outcome)).toEqual(['reset', 201]);
    const keys = proxy.requests.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^client-[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(created.lastResponse.idempotentReplayed).toBe(true);
    // The server ran it once: one contact with that phone.
    const found = await client.contacts.list({ q: phone });
    expect(found.data.map((contact) => contact.id)).toEqual([created.data.id]);
  });

  it('a connection refused or reset before the server saw it, after a backoff', async () => {
    proxy.failNext('reset-before', 'reset-before');
    const me = await client.me.get();
    expect(me.data.organization.id).toBe(tenant.org.id);
    expect(proxy.requests.map((request) => request.outcome)).toEqual(['reset', 'reset', 200]);
    // ~0.5 s then ~1 s, with jitter (each between half and all of it).
    expect(gaps()[0]).toBeGreaterThanOrEqual(240);
    expect(gaps()[1]).toBeGreaterThanOrEqual(490);
  });

  it('a 5xx answer', async () => {
    proxy.failNext({ status: 503, body: envelope('SERVICE_UNAVAILABLE', 'Try again') });
    const me = await client.me.get();
    expect(me.lastResponse.status).toBe(200);
    expect(proxy.requests.map((request) => request.outcome)).toEqual([503, 200]);
  });

  it('a 429 after exactly the Retry-After seconds', async () => {
    proxy.failNext({
      status: 429,
      headers: { 'retry-after': '1' },
      body: envelope('RATE_LIMITED', 'Slow down'),
    });
    const started = Date.now();
    await client.me.get();
    expect(proxy.requests.map((request) => request.outcome)).toEqual([429, 200]);
    expect(gaps()[0]).toBeGreaterThanOrEqual(990);
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('a timeout, as a network error (the key makes the retry safe)', async () => {
    const quick = clientFor(proxy.url, tenant.secret.key, { timeoutMs: 300 });
    proxy.failNext('hang');
    const started = Date.now();
    await quick.me.get();
    expect(proxy.requests.map((request) => request.outcome)).toEqual(['hang', 200]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });
});

describe('given up', () => {
  it('after maxRetries: the last error (ApiConnectionError, or ApiError of the last answer)', async () => {
    proxy.failNext('reset-before', 'reset-before', 'reset-before');
    const unreachable = await client.me.get().catch((caught: unknown) => caught);
    expect(unreachable).toBeInstanceOf(ApiConnectionError);
    expect(unreachable).toMatchObject({ timedOut: false });
    expect((unreachable as Error).message).toMatch(
      /GET http:\/\/127\.0\.0\.1:\d+\/v1\/me failed .* 3 attempt/,
    );
    expect(proxy.requests).toHaveLength(3);

    const quick = clientFor(proxy.url, tenant.secret.key, { timeoutMs: 200, maxRetries: 1 });
    proxy.failNext('hang', 'hang');
    await expect(quick.me.get()).rejects.toMatchObject({ name: 'ApiConnectionError', timedOut: true });
    expect(proxy.requests).toHaveLength(2);

    const html = '<html><body>502 Bad Gateway</body></html>';
    proxy.failNext(...Array.from({ length: 3 }, () => ({ status: 502, body: html })));
    const gateway = (await client.me.get().catch((caught: unknown) => caught)) as ApiError;
    expect(gateway).toBeInstanceOf(ApiError);
    expect(gateway).toMatchObject({ status: 502, code: 'UNEXPECTED_RESPONSE' });
    expect(gateway.message).toContain('502 Bad Gateway');
    expect(proxy.requests).toHaveLength(3);
  });

  it('at once on a 4xx: 400, 401, 403, 404 and a 409 without Retry-After', async () => {
    for (const [status, code] of [
      [400, 'VALIDATION_ERROR'],
      [401, 'UNAUTHORIZED'],
      [403, 'FORBIDDEN'],
      [404, 'NOT_FOUND'],
      [409, 'DUPLICATE'],
    ] as const) {
      proxy.failNext({ status, body: envelope(code, 'No') });
      await expect(client.me.get()).rejects.toMatchObject({ status, code, requestId: 'req_from_the_proxy' });
      expect(proxy.requests, code).toHaveLength(1);
    }
  });

  it('at once on a real 429 whose Retry-After is beyond maxRetryAfterSeconds, with the limit headers', async () => {
    const limited = await createApiKey(app, tenant.org.id, { type: 'secret', rateLimitPerMinute: 2 });
    const patient = clientFor(proxy.url, limited.key, { maxRetryAfterSeconds: 5 });
    proxy.failNext();
    await patient.me.get();
    await patient.me.get();
    const started = Date.now();
    const error = (await patient.me.get().catch((caught: unknown) => caught)) as ApiError;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(error.retryAfter).toBeGreaterThan(5);
    expect(error.retryAfter).toBeLessThanOrEqual(60);
    expect(error.rateLimit).toMatchObject({ limit: 2, remaining: 0 });
    expect(proxy.requests.map((request) => request.outcome)).toEqual([200, 200, 429]);
  });

  it("when the caller's signal aborts, also during a wait, without another attempt", async () => {
    proxy.failNext('hang');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    await expect(client.me.get({ signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(proxy.requests).toHaveLength(1);

    proxy.failNext({ status: 429, headers: { 'retry-after': '30' }, body: envelope('RATE_LIMITED', 'Wait') });
    const waiting = new AbortController();
    const started = Date.now();
    setTimeout(() => waiting.abort(new Error('gave up waiting')), 300);
    await expect(client.me.get({ signal: waiting.signal })).rejects.toThrow('gave up waiting');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(proxy.requests).toHaveLength(1);
  });
});
