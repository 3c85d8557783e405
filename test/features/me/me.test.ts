import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createApiKey, createTenant, type Tenant } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

describe('GET /v1/me', () => {
  it('answers per SPEC: apiKeyId, organization {id, plan, isActive}, scopes, plus key type, mode, level, limits', async () => {
    const body = expectStatus(await api(app, 'GET', '/v1/me', { key: tenant.secret.key }), 200);
    expect(body).toEqual({
      data: {
        apiKeyId: tenant.secret.id,
        organization: {
          id: tenant.org.id,
          name: 'Test Realty',
          plan: 'BUSINESS',
          isActive: true,
          readOnly: false,
          livemode: true,
        },
        scopes: tenant.secret.scopes,
        keyType: 'secret',
        mode: 'live',
        accessLevel: 3,
        agentId: null,
        limits: { requestsPerMinute: 60, writesPerMinute: 30, organizationWritesPerMinute: 600 },
      },
    });
  });

  it('needs no scope: a publishable key and a key with no scopes both get their description', async () => {
    const publishable = expectStatus(await api(app, 'GET', '/v1/me', { key: tenant.publishable.key }), 200);
    expect(publishable.data).toMatchObject({
      keyType: 'publishable',
      scopes: ['portal:read', 'leads:write', 'booking:write', 'finder:write', 'events:write'],
      limits: { requestsPerMinute: 300, writesPerMinute: 60 },
    });
    const bare = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: [] });
    expect(expectStatus(await api(app, 'GET', '/v1/me', { key: bare.key }), 200).data.scopes).toEqual([]);
  });

  it('shows per-key overrides and the bound agent', async () => {
    const agent = await createAgent(app, tenant.org.id);
    const key = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      rateLimitPerMinute: 500,
      writeLimitPerMinute: 100,
      agentId: agent.id,
    });
    const me = expectStatus(await api(app, 'GET', '/v1/me', { key: key.key }), 200).data;
    expect(me.limits).toMatchObject({ requestsPerMinute: 500, writesPerMinute: 100 });
    expect(me.agentId).toBe(agent.id);
  });

  it("reflects an organization's changes within the key cache time", async () => {
    const other = await createTenant(app);
    await app.inject({
      method: 'PATCH',
      url: `/admin/v1/organizations/${other.org.id}`,
      headers: { authorization: 'Bearer test-admin-token-0123456789' },
      payload: { plan: 'ENTERPRISE', readOnly: true },
    });
    const me = expectStatus(await api(app, 'GET', '/v1/me', { key: other.secret.key }), 200).data;
    expect(me.organization).toMatchObject({ plan: 'ENTERPRISE', readOnly: true });
    expect(me.limits.organizationWritesPerMinute).toBe(1200);
  });
});
