import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../helpers/factories.ts';
import { admin, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;

beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
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

  // MCP's JSON-RPC has its own ids; the OAuth token endpoint's answer is the key itself, which no
  // stored answer may hold (decision 0262): both are repeated safely without the header.
  it('documents Idempotency-Key on every POST, admin included (MCP and the OAuth token aside)', async () => {
    const document = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const posts = Object.entries(
      document.paths as Record<string, Record<string, { parameters?: { $ref?: string }[] }>>,
    )
      .filter(([path, item]) => item.post && path !== '/mcp' && path !== '/oauth/token')
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
