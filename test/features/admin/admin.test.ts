import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrganization } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;

beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('admin authentication', () => {
  it.each([
    ['no header', {}],
    ['a wrong token', { authorization: 'Bearer wrong-token-000000000000' }],
    ['an API key instead', { 'x-api-key': 'service_sk_live_x' }],
  ])('answers 401 with %s', async (_what, headers) => {
    const response = await app.inject({ method: 'GET', url: '/admin/v1/organizations', headers });
    expectError(response, 401, 'UNAUTHORIZED');
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});

describe('organizations', () => {
  it('creates an organization with its test twin', async () => {
    const org = await createOrganization(app, { name: 'Casa Azul', plan: 'PROFESSIONAL' });
    expect(org).toMatchObject({
      name: 'Casa Azul',
      plan: 'PROFESSIONAL',
      isActive: true,
      readOnly: false,
      writeLimitPerMinute: null,
      effectiveWriteLimitPerMinute: 300,
      defaultCountry: 'US',
      defaultCurrency: 'USD',
      livemode: true,
      liveOrganizationId: null,
    });
    expect(org.id).toMatch(/^org_/);
    expect(org.testOrganizationId).toMatch(/^org_/);
    const twin = expectStatus(
      await admin(app, 'GET', `/admin/v1/organizations/${org.testOrganizationId}`),
      200,
    ).data;
    expect(twin).toMatchObject({
      livemode: false,
      liveOrganizationId: org.id,
      testOrganizationId: null,
      plan: 'PROFESSIONAL',
    });
  });

  it('gets, lists (live only, filtered, paged) and updates organizations', async () => {
    const org = await createOrganization(app, { name: 'Listed', plan: 'ENTERPRISE' });
    expectStatus(await admin(app, 'GET', `/admin/v1/organizations/${org.id}`), 200);
    const list = expectStatus(
      await admin(app, 'GET', '/admin/v1/organizations?plan=ENTERPRISE&pageSize=100'),
      200,
    );
    expect(list.data.some((o: { id: string }) => o.id === org.id)).toBe(true);
    expect(
      list.data.every((o: { plan: string; livemode: boolean }) => o.plan === 'ENTERPRISE' && o.livemode),
    ).toBe(true);
    expect(list.meta).toMatchObject({ page: 1, pageSize: 100 });

    const updated = expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${org.id}`, {
        plan: 'STARTER',
        writeLimitPerMinute: 10,
        defaultCountry: 'ES',
        defaultCurrency: 'EUR',
      }),
      200,
    ).data;
    expect(updated).toMatchObject({
      plan: 'STARTER',
      writeLimitPerMinute: 10,
      effectiveWriteLimitPerMinute: 10,
      defaultCountry: 'ES',
    });
    const reset = expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${org.id}`, { writeLimitPerMinute: null }),
      200,
    );
    expect(reset.data.effectiveWriteLimitPerMinute).toBe(120);
  });

  it('refuses bad input with 400 naming the field', async () => {
    const org = await createOrganization(app);
    expectError(await admin(app, 'PATCH', `/admin/v1/organizations/${org.id}`, {}), 400, 'VALIDATION_ERROR');
    const error = expectError(
      await admin(app, 'PATCH', `/admin/v1/organizations/${org.testOrganizationId}`, { plan: 'FREE' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.message).toMatch(/test twin/);
    expectError(
      await admin(app, 'POST', '/admin/v1/organizations', {
        name: 'X',
        plan: 'BUSINESS',
        defaultCountry: 'spain',
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('answers 404 for an unknown or malformed organization id', async () => {
    expectError(
      await admin(app, 'GET', '/admin/v1/organizations/org_0000000000000000000000'),
      404,
      'NOT_FOUND',
    );
    expectError(await admin(app, 'GET', '/admin/v1/organizations/nonsense'), 404, 'NOT_FOUND');
    expectError(
      await admin(app, 'POST', '/admin/v1/organizations/org_0000000000000000000000/api-keys', {
        type: 'secret',
      }),
      404,
      'NOT_FOUND',
    );
  });
});

describe("Idempotency-Key on the operator's POSTs (issue 36 item 5)", () => {
  it('creates one organization for one key: the retry replays it, another body is a 409', async () => {
    const key = `org-create-${Date.now()}`;
    const body = { name: 'Idempotent Realty', plan: 'STARTER' };
    const first = await admin(app, 'POST', '/admin/v1/organizations', body, { 'idempotency-key': key });
    const created = expectStatus(first, 201).data;
    const again = await admin(app, 'POST', '/admin/v1/organizations', body, { 'idempotency-key': key });
    expect(expectStatus(again, 201).data.id).toBe(created.id);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const listed = expectStatus(await admin(app, 'GET', '/admin/v1/organizations?pageSize=100'), 200);
    expect(listed.data.filter((org: { name: string }) => org.name === 'Idempotent Realty')).toHaveLength(1);
    const other = await admin(
      app,
      'POST',
      '/admin/v1/organizations',
      { ...body, name: 'Other' },
      { 'idempotency-key': key },
    );
    expectError(other, 409, 'DUPLICATE');
  });

  it("documents Idempotency-Key on every POST, admin included (MCP's JSON-RPC aside)", async () => {
    const document = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const posts = Object.entries(
      document.paths as Record<string, Record<string, { parameters?: { $ref?: string }[] }>>,
    )
      .filter(([path, item]) => item.post && path !== '/mcp')
      .map(([path, item]) => ({
        path,
        refs: (item.post?.parameters ?? []).map((p) => p.$ref),
      }));
    expect(posts.length).toBeGreaterThan(50);
    expect(
      posts
        .filter((post) => !post.refs.includes('#/components/parameters/IdempotencyKey'))
        .map((post) => post.path),
    ).toEqual([]);
  });
});

describe('API keys', () => {
  it('creates keys with the documented defaults, showing the key only once', async () => {
    const org = await createOrganization(app);
    const publishable = await createApiKey(app, org.id, { type: 'publishable' });
    expect(publishable.key).toMatch(/^service_pk_live_[0-9A-Za-z]{38}$/);
    expect(publishable.scopes).toEqual([
      'portal:read',
      'leads:write',
      'booking:write',
      'finder:write',
      'events:write',
    ]);
    expect(publishable.accessLevel).toBe(1);
    const secret = await createApiKey(app, org.id, { type: 'secret' });
    expect(secret.key).toMatch(/^service_sk_live_/);
    expect(secret.scopes).not.toContain('contacts:write');
    expect(secret.scopes).not.toContain('webhooks:write');
    expect(secret.scopes).toContain('contacts:read');
    expect(secret.keyPrefix).toBe(secret.key.slice(0, 20));
    const fetched = expectStatus(await admin(app, 'GET', `/admin/v1/api-keys/${secret.id}`), 200).data;
    expect(fetched).not.toHaveProperty('key');
    expect(JSON.stringify(fetched)).not.toContain(secret.key);
    const list = expectStatus(await admin(app, 'GET', `/admin/v1/organizations/${org.id}/api-keys`), 200);
    expect(list.meta.total).toBe(2);
    expect(JSON.stringify(list)).not.toContain(secret.key);
  });

  it('creates test keys on the twin, from either id, and lists them with the live ones', async () => {
    const org = await createOrganization(app);
    const fromLive = await createApiKey(app, org.id, { type: 'secret', mode: 'test' });
    const fromTwin = await createApiKey(app, org.testOrganizationId as string, { type: 'publishable' });
    expect(fromLive).toMatchObject({ mode: 'test', organizationId: org.testOrganizationId });
    expect(fromTwin).toMatchObject({ mode: 'test', organizationId: org.testOrganizationId });
    expect(fromTwin.key).toMatch(/^service_pk_test_/);
    const error = expectError(
      await admin(app, 'POST', `/admin/v1/organizations/${org.testOrganizationId}/api-keys`, {
        type: 'secret',
        mode: 'live',
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.message).toMatch(/body\.mode/);
    const list = expectStatus(
      await admin(app, 'GET', `/admin/v1/organizations/${org.id}/api-keys?mode=test`),
      200,
    );
    expect(list.meta.total).toBe(2);
  });

  it.each([
    ['FREE', 'publishable', /FREE plan has no API access/],
    ['STARTER', 'read_only_secret', /STARTER plan does not allow read only secret keys/],
    ['PROFESSIONAL', 'read_only_secret', /PROFESSIONAL plan/],
  ])('refuses a key type the %s plan does not allow (400 naming the plan)', async (plan, type, message) => {
    const org = await createOrganization(app, { plan });
    const error = expectError(
      await admin(app, 'POST', `/admin/v1/organizations/${org.id}/api-keys`, { type }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.message).toMatch(message);
  });

  it.each([
    [{ type: 'publishable', scopes: ['contacts:read'] }, /body\.scopes/],
    [{ type: 'read_only_secret', scopes: ['contacts:write'] }, /body\.scopes/],
    [{ type: 'secret', scopes: ['everything:write'] }, /body\.scopes\[0\]/],
    [{ type: 'publishable', accessLevel: 3 }, /body\.accessLevel/],
    [{ type: 'read_only_secret', writeLimitPerMinute: 5 }, /body\.writeLimitPerMinute/],
    [{ type: 'secret', expiresAt: '2001-01-01T00:00:00Z' }, /body\.expiresAt/],
    [{ type: 'secret', expiresAt: 'tomorrow' }, /body\.expiresAt/],
    [{ type: 'secret', accessLevel: 4 }, /body\.accessLevel/],
  ])('refuses %j', async (body, message) => {
    const org = await createOrganization(app, { plan: 'ENTERPRISE' });
    const error = expectError(
      await admin(app, 'POST', `/admin/v1/organizations/${org.id}/api-keys`, body),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.message).toMatch(message);
  });

  it('suspends, reactivates and deactivates (final) a key, and changes its limits', async () => {
    const org = await createOrganization(app);
    const key = await createApiKey(app, org.id, { type: 'secret' });
    const url = `/admin/v1/api-keys/${key.id}`;
    expect(expectStatus(await admin(app, 'PATCH', url, { status: 'suspended' }), 200).data.status).toBe(
      'suspended',
    );
    expect(
      expectStatus(
        await admin(app, 'PATCH', url, { status: 'active', rateLimitPerMinute: 120, name: 'renamed' }),
        200,
      ).data,
    ).toMatchObject({
      status: 'active',
      rateLimitPerMinute: 120,
      name: 'renamed',
    });
    expectStatus(await admin(app, 'PATCH', url, { status: 'deactivated' }), 200);
    const error = expectError(await admin(app, 'PATCH', url, { status: 'active' }), 400, 'VALIDATION_ERROR');
    expect(error.message).toMatch(/stays deactivated/);
    expectError(await api(app, 'GET', '/v1/me', { key: key.key }), 401, 'UNAUTHORIZED');
  });

  it('sets and clears an expiry', async () => {
    const org = await createOrganization(app);
    const key = await createApiKey(app, org.id, { type: 'secret' });
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const url = `/admin/v1/api-keys/${key.id}`;
    expect(expectStatus(await admin(app, 'PATCH', url, { expiresAt: later }), 200).data.expiresAt).toBe(
      later,
    );
    expect(expectStatus(await admin(app, 'PATCH', url, { expiresAt: null }), 200).data.expiresAt).toBeNull();
    expectError(
      await admin(app, 'PATCH', url, { expiresAt: '2000-01-01T00:00:00Z' }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('answers 404 for an unknown key', async () => {
    expectError(await admin(app, 'GET', '/admin/v1/api-keys/key_0000000000000000000000'), 404, 'NOT_FOUND');
    expectError(
      await admin(app, 'PATCH', '/admin/v1/api-keys/nope', { status: 'suspended' }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('demo seed', () => {
  it('creates Demo Realty on BUSINESS with a publishable key and a full secret key that work', async () => {
    const seed = expectStatus(await admin(app, 'POST', '/admin/v1/demo-seed'), 201).data;
    expect(seed.organization).toMatchObject({ name: 'Demo Realty', plan: 'BUSINESS' });
    const secret = expectStatus(await api(app, 'GET', '/v1/me', { key: seed.secretKey }), 200).data;
    expect(secret).toMatchObject({ keyType: 'secret', accessLevel: 3 });
    expect([...secret.scopes].sort()).toEqual([...SCOPES].sort());
    const publishable = expectStatus(await api(app, 'GET', '/v1/me', { key: seed.publishableKey }), 200).data;
    expect(publishable.keyType).toBe('publishable');
  });
});
