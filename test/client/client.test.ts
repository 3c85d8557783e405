/**
 * The TypeScript client (clients/typescript) against a listening server: one method per operation
 * of the served OpenAPI document, typed answers with their response metadata, automatic
 * Idempotency-Key, paging, and the API's errors as ApiError.
 */
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, OPERATIONS, type Client } from '../../clients/typescript/src/index.ts';
import { createProperty, createTenant, nextPhone, type Tenant } from '../helpers/factories.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { clientFor, listen } from './support.ts';

let app: FastifyInstance;
let baseUrl: string;
let tenant: Tenant;
let secret: Client;
let publishable: Client;
/** Every request the secret client sent (method, URL and Idempotency-Key), through its `fetch` option. */
const sent: { method: string; url: string; idempotencyKey: string | null }[] = [];

beforeAll(async () => {
  app = await buildTestApp();
  baseUrl = await listen(app);
  tenant = await createTenant(app, {
    secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 },
  });
  secret = clientFor(baseUrl, tenant.secret.key, {
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      sent.push({
        method: init?.method ?? 'GET',
        url: String(input),
        idempotencyKey: headers.get('idempotency-key'),
      });
      return fetch(input, init);
    },
  });
  publishable = clientFor(baseUrl, tenant.publishable.key);
});
afterAll(async () => {
  await app.close();
});

function sentSince(mark: number) {
  return sent.slice(mark);
}

describe('methods', () => {
  it('are one per operation an API key calls in the served /v1/openapi.json, with its method and path', async () => {
    const document = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; security?: Record<string, unknown>[] }>>;
    };
    const served: Record<string, { method: string; path: string }> = {};
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (operation.security?.some((requirement) => 'ApiKey' in requirement)) {
          served[operation.operationId] = { method: method.toUpperCase(), path };
        }
      }
    }
    const generated = Object.fromEntries(
      Object.entries(OPERATIONS).map(([id, spec]) => [id, { method: spec.method, path: spec.path }]),
    );
    expect(generated).toEqual(served);
    expect(Object.keys(served).length).toBeGreaterThan(40);
    for (const id of Object.keys(served)) {
      const method = id
        .split('.')
        .reduce<unknown>((group, part) => (group as Record<string, unknown>)[part], secret);
      expect(typeof method, id).toBe('function');
    }
  });
});

describe('answers', () => {
  it('resolve to the typed body, with lastResponse (request id, rate limit) left out of JSON', async () => {
    const me = await secret.me.get();
    expect(me.data.organization.id).toBe(tenant.org.id);
    expect(me.data.scopes).toContain('contacts:write');
    expect(me.lastResponse.status).toBe(200);
    expect(me.lastResponse.requestId).toMatch(/^req_/);
    expect(me.lastResponse.rateLimit).toMatchObject({ limit: 100_000 });
    expect(me.lastResponse.idempotencyKey).toBeUndefined();
    expect(JSON.parse(JSON.stringify(me))).toEqual({ data: me.data });
  });

  it('fill path parameters and the query string (publishable key on the portal)', async () => {
    const property = await createProperty(app, tenant.org.id, { city: 'Ronda', price: 199_000 });
    await createProperty(app, tenant.org.id, { city: 'Sevilla' });
    const page = await publishable.properties.list({ city: 'ronda', priceMax: 200_000 });
    expect(page.data.map((item) => item.id)).toEqual([property.id]);
    expect(page.meta).toMatchObject({ total: 1, page: 1, totalPages: 1 });
    const one = await publishable.properties.get(property.id);
    expect(one.data).toMatchObject({ id: property.id, city: 'Ronda', price: 199_000 });
  });

  it('send a fresh Idempotency-Key with each POST, the given one when set, and report a replay', async () => {
    const mark = sent.length;
    const phone = nextPhone();
    const created = await secret.contacts.create({ firstName: 'Ana', phone, tags: ['client-test'] });
    expect(created.lastResponse.status).toBe(201);
    expect(created.lastResponse.idempotencyKey).toMatch(/^client-[0-9a-f]{32}$/);
    expect(created.lastResponse.idempotentReplayed).toBe(false);

    const key = `client-test-${Date.now()}`;
    const body = { firstName: 'Bea', phone: nextPhone() };
    const first = await secret.contacts.create(body, { idempotencyKey: key });
    const again = await secret.contacts.create(body, { idempotencyKey: key });
    expect(again.data.id).toBe(first.data.id);
    expect(again.lastResponse.idempotentReplayed).toBe(true);

    const updated = await secret.contacts.update(first.data.id, { lastName: 'Ruiz' });
    expect(updated.data.lastName).toBe('Ruiz');
    const requests = sentSince(mark);
    expect(requests.map((request) => request.method)).toEqual(['POST', 'POST', 'POST', 'PATCH']);
    expect(requests[1]?.idempotencyKey).toBe(key);
    expect(requests[3]?.idempotencyKey).toBeNull();
  });

  it('send a FormData as multipart/form-data: a listing photo upload', async () => {
    const listing = await createProperty(app, tenant.org.id, { photos: [] });
    const bytes = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#8a5' } })
      .jpeg()
      .toBuffer();
    const form = new FormData();
    form.append('caption', 'Garden');
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'garden.jpg');
    const mark = sent.length;
    const photo = await secret.listings.photos.upload(listing.id, form);
    expect(photo.data).toMatchObject({ caption: 'Garden', width: 640, height: 480 });
    expect(photo.data.sizes?.map((size) => size.width)).toEqual([480, 640]);
    // Retried safely like any POST: an Idempotency-Key went with it.
    expect(sentSince(mark)[0]?.idempotencyKey).toBeTruthy();
  });

  it('of a paged list: awaiting gives the page, for await walks every item of every page', async () => {
    const tag = `walk-${Date.now()}`;
    const ids = new Set<string>();
    for (let i = 0; i < 5; i += 1) {
      ids.add(
        (await secret.contacts.create({ firstName: `Walker${i}`, phone: nextPhone(), tags: [tag] })).data.id,
      );
    }
    const first = await secret.contacts.list({ tag, pageSize: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.meta).toMatchObject({ total: 5, page: 1, pageSize: 2, totalPages: 3 });

    const mark = sent.length;
    const walked: string[] = [];
    for await (const contact of secret.contacts.list({ tag, pageSize: 2 })) walked.push(contact.id);
    expect(new Set(walked)).toEqual(ids);
    expect(walked).toHaveLength(5);
    expect(sentSince(mark).map((request) => new URL(request.url).searchParams.get('page'))).toEqual([
      null,
      '2',
      '3',
    ]);

    // From a later page on, and an empty list in one request.
    const rest: string[] = [];
    for await (const contact of secret.contacts.list({ tag, pageSize: 2, page: 2 })) rest.push(contact.id);
    expect(rest).toEqual(walked.slice(2));
    const none: unknown[] = [];
    for await (const contact of secret.contacts.list({ tag: 'no-such-tag-anywhere' })) none.push(contact);
    expect(none).toEqual([]);

    // Cursor mode (updatedAfter): it follows meta.nextCursor with the same filters. (The cast goes once
    // the generated types know the parameter.)
    const synced: string[] = [];
    const since = { tag, pageSize: 2, updatedAfter: '2000-01-01T00:00:00Z' } as {
      tag: string;
      pageSize: number;
    };
    const syncMark = sent.length;
    for await (const contact of secret.contacts.list(since)) synced.push(contact.id);
    expect(synced).toEqual([...walked].reverse());
    const queries = sentSince(syncMark).map((request) => new URL(request.url).searchParams);
    expect(queries.map((query) => query.get('tag'))).toEqual([tag, tag, tag]);
    expect(queries.map((query) => query.has('cursor'))).toEqual([false, true, true]);
  });
});

describe('errors', () => {
  it('are ApiError with code, message, details, requestId and rate-limit headers (400, not retried)', async () => {
    const mark = sent.length;
    const error = await secret.contacts
      .create({ firstName: '', phone: '1' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(400);
    expect(apiError.code).toBe('VALIDATION_ERROR');
    expect(apiError.message).toContain('body.firstName');
    expect(apiError.details.map((detail) => detail.field)).toEqual(
      expect.arrayContaining(['body.firstName', 'body.phone']),
    );
    expect(apiError.requestId).toMatch(/^req_/);
    expect(apiError.requestId).toBe(apiError.headers.get('x-request-id'));
    expect(apiError.rateLimit?.limit).toBe(100_000);
    expect(sentSince(mark)).toHaveLength(1);
  });

  it('name the situation: 401 UNAUTHORIZED, 403 FORBIDDEN with the scopes, 404 NOT_FOUND', async () => {
    const unknownKey = clientFor(baseUrl, 'service_sk_live_notarealkey');
    await expect(unknownKey.me.get()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });

    const forbidden = (await publishable.contacts.list().catch((caught: unknown) => caught)) as ApiError;
    expect(forbidden).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(forbidden.message).toContain('portal:read');

    await expect(publishable.properties.get('prop_0000000000000000000000')).rejects.toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  it('of a reused Idempotency-Key with another body: 409 DUPLICATE at once, not retried', async () => {
    const key = `client-mismatch-${Date.now()}`;
    await secret.contacts.create({ firstName: 'Cris', phone: nextPhone() }, { idempotencyKey: key });
    const mark = sent.length;
    const error = (await secret.contacts
      .create({ firstName: 'Dani', phone: nextPhone() }, { idempotencyKey: key })
      .catch((caught: unknown) => caught)) as ApiError;
    expect(error).toMatchObject({ status: 409, code: 'DUPLICATE', retryAfter: undefined });
    expect(sentSince(mark)).toHaveLength(1);
  });

  it('of the caller: a missing path parameter or a bad client option is a TypeError before any request', async () => {
    const mark = sent.length;
    await expect(secret.contacts.get('')).rejects.toThrow(TypeError);
    await expect(secret.contacts.get(undefined as unknown as string)).rejects.toThrow(
      /contacts.get: id must be a non-empty string/,
    );
    expect(sentSince(mark)).toHaveLength(0);
    expect(() => clientFor('not a url', tenant.secret.key)).toThrow(/baseUrl must be an absolute URL/);
    expect(() => clientFor(baseUrl, '')).toThrow(/apiKey is required/);
  });
});
