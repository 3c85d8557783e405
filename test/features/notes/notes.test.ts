import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import { createApiKey, createTenant, type Tenant } from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;
let contactId: string;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } });
  contactId = expectStatus(
    await api(app, 'POST', '/v1/contacts', { key: tenant.secret.key, body: { firstName: 'Noted' } }),
    201,
  ).data.id;
});
afterAll(async () => {
  await app.close();
});

const add = (body: unknown, options: { key?: string; id?: string; headers?: Record<string, string> } = {}) =>
  api(app, 'POST', `/v1/contacts/${options.id ?? contactId}/notes`, {
    key: options.key ?? tenant.secret.key,
    headers: options.headers,
    body,
  });

describe('POST and GET /v1/contacts/{id}/notes', () => {
  it('adds notes, lists them newest first, and records note.created with the key as actor', async () => {
    const first = expectStatus(await add({ body: '  Prefers visits after 18:00  ' }), 201).data;
    expect(first).toMatchObject({ contactId, body: 'Prefers visits after 18:00', authorAgentId: null });
    const second = expectStatus(await add({ body: 'Budget up to 420,000 EUR' }), 201).data;
    const list = expectStatus(
      await api(app, 'GET', `/v1/contacts/${contactId}/notes`, { key: tenant.secret.key }),
      200,
    );
    expect(list.data.map((n: { id: string }) => n.id)).toEqual([second.id, first.id]);
    expect(list.meta).toMatchObject({ total: 2, page: 1 });
    const log = expectStatus(
      await api(app, 'GET', '/v1/event-log', { key: tenant.secret.key, query: { type: 'note.created' } }),
      200,
    );
    expect(log.data.map((e: { data: { note: { id: string } } }) => e.data.note.id)).toEqual([
      first.id,
      second.id,
    ]);
    expect(log.data[0].actor.kind).toBe('API');
    expect(() => eventCatalog.check('note.created', log.data[0].data)).not.toThrow();
  });

  it('names the field of a bad body', async () => {
    for (const body of [
      {},
      { body: '' },
      { body: '   ' },
      { body: 'x'.repeat(10_001) },
      { body: 'ok', extra: 1 },
    ]) {
      const error = expectError(await add(body), 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(error)).toMatch(/body\.(body|extra)/);
    }
  });

  it('replays a note under the same Idempotency-Key: one note', async () => {
    const headers = { 'Idempotency-Key': `note-${Date.now()}` };
    const first = expectStatus(await add({ body: 'Once' }, { headers }), 201);
    const again = await add({ body: 'Once' }, { headers });
    expect(again.json()).toEqual(first);
    const list = expectStatus(
      await api(app, 'GET', `/v1/contacts/${contactId}/notes`, {
        key: tenant.secret.key,
        query: { pageSize: '100' },
      }),
      200,
    );
    expect(list.data.filter((n: { body: string }) => n.body === 'Once')).toHaveLength(1);
  });

  it('refuses keys without contacts:write, publishable and read-only keys, and another organization’s contact', async () => {
    const reader = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: ['contacts:read'],
      accessLevel: 3,
    });
    expectError(await add({ body: 'no' }, { key: reader.key }), 403, 'FORBIDDEN');
    expectError(await add({ body: 'no' }, { key: tenant.publishable.key }), 403, 'FORBIDDEN');
    expectError(await add({ body: 'no' }, { key: tenant.readOnly.key }), 403, 'FORBIDDEN');
    expectStatus(await api(app, 'GET', `/v1/contacts/${contactId}/notes`, { key: tenant.readOnly.key }), 200);
    const stranger = await createTenant(app);
    expectError(await add({ body: 'mine?' }, { key: stranger.secret.key }), 404, 'NOT_FOUND');
    expectError(
      await api(app, 'GET', `/v1/contacts/${contactId}/notes`, { key: stranger.secret.key }),
      404,
      'NOT_FOUND',
    );
    expectError(await add({ body: 'x' }, { id: 'ct_nope' }), 404, 'NOT_FOUND');
  });
});
