import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;
const settings = () => `/admin/v1/organizations/${tenant.org.id}/portal-settings`;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

describe('GET /v1/portal', () => {
  it('falls back to the organization’s name and defaults before anything is set', async () => {
    const { data } = expectStatus(await api(app, 'GET', '/v1/portal', { key: tenant.publishable.key }), 200);
    expect(data).toEqual({
      organizationId: tenant.org.id,
      agencyName: 'Test Realty',
      logoUrl: null,
      colors: {},
      contact: {},
      socialLinks: {},
      defaultCurrency: 'USD',
      defaultCountry: 'US',
      defaultLanguage: 'en',
      languages: ['en'],
      livemode: true,
      updatedAt: null,
    });
  });

  it('shows what the back office set; nested objects merge and null removes a member', async () => {
    const first = expectStatus(
      await admin(app, 'PATCH', settings(), {
        agencyName: 'Costa Homes',
        logoUrl: 'https://cdn.example.com/logo.svg',
        colors: { primary: '#0A3D62', accent: '#F39C12' },
        contact: { email: 'hola@costa.example', phone: '(415) 555-2671', address: 'Main St 1' },
        socialLinks: { instagram: 'https://instagram.com/costa' },
      }),
      200,
    ).data;
    expect(first.contact.phone).toBe('+14155552671');
    const second = expectStatus(
      await admin(app, 'PATCH', settings(), { colors: { primary: '#111111' }, contact: { address: null } }),
      200,
    ).data;
    expect(second.colors).toEqual({ primary: '#111111', accent: '#F39C12' });
    expect(second.contact).toEqual({ email: 'hola@costa.example', phone: '+14155552671' });
    const { data } = expectStatus(await api(app, 'GET', '/v1/portal', { key: tenant.publishable.key }), 200);
    expect(data).toMatchObject({ agencyName: 'Costa Homes', logoUrl: 'https://cdn.example.com/logo.svg' });
    expect(data.updatedAt).toEqual(expect.any(String));
  });

  it('changes the default currency and phone country of the organization and its test twin', async () => {
    const own = await createTenant(app);
    const data = expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${own.org.id}/portal-settings`, {
        defaultCurrency: 'EUR',
        defaultCountry: 'ES',
        contact: { phone: '612 34 56 78' },
      }),
      200,
    ).data;
    expect(data).toMatchObject({
      defaultCurrency: 'EUR',
      defaultCountry: 'ES',
      contact: { phone: '+34612345678' },
    });
    const twin = expectStatus(
      await admin(app, 'GET', `/admin/v1/organizations/${own.org.testOrganizationId}/portal-settings`),
      200,
    ).data;
    expect(twin).toMatchObject({ defaultCurrency: 'EUR', defaultCountry: 'ES', livemode: false });
    expectError(
      await admin(app, 'PATCH', `/admin/v1/organizations/${own.org.testOrganizationId}/portal-settings`, {
        defaultCurrency: 'GBP',
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('keeps the test twin’s branding apart', async () => {
    const testKey = await createApiKey(app, tenant.org.id, { type: 'publishable', mode: 'test' });
    const { data } = expectStatus(await api(app, 'GET', '/v1/portal', { key: testKey.key }), 200);
    expect(data.organizationId).toBe(tenant.org.testOrganizationId);
    expect(data.livemode).toBe(false);
    expect(data.agencyName).toBe('Test Realty');
  });
});

describe('portal settings errors', () => {
  it.each([
    [{}, 'body'],
    [{ colors: { primary: 'blue' } }, 'primary'],
    [{ logoUrl: 'javascript:alert(1)' }, 'logoUrl'],
    [{ socialLinks: { myspace: 'https://myspace.com/x' } }, 'myspace'],
    [{ contact: { email: 'nope' } }, 'email'],
    [{ contact: { phone: '12' } }, 'body.contact.phone'],
    [{ defaultCurrency: 'euro' }, 'defaultCurrency'],
  ])('%j -> 400 naming %s', async (body, field) => {
    const error = expectError(await admin(app, 'PATCH', settings(), body), 400, 'VALIDATION_ERROR');
    expect(error.message).toContain(field);
  });

  it('answers 404 for an unknown organization', async () => {
    expectError(
      await admin(app, 'GET', '/admin/v1/organizations/org_0000000000000000000000/portal-settings'),
      404,
      'NOT_FOUND',
    );
    expectError(
      await admin(app, 'PATCH', '/admin/v1/organizations/nope/portal-settings', { agencyName: 'x' }),
      404,
      'NOT_FOUND',
    );
  });
});
