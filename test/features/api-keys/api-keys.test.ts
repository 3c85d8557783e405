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
