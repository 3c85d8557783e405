/**
 * A contact's preferred language (issue 41): the language emails reach them in. A portal form records
 * the browser's first Accept-Language on a contact who has none (a later form in another language
 * keeps it); the API shows it and changes it, ISO 639-1 in lower case only.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busyPublishableKey, createTenant, type Tenant } from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;
let pageKey: string;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
  pageKey = await busyPublishableKey(app, tenant.org.id);
});
afterAll(async () => {
  await app.close();
});

async function lead(phone: string, acceptLanguage?: string) {
  const response = await app.inject({
    method: 'POST',
    url: '/v1/leads',
    headers: { 'x-api-key': pageKey, ...(acceptLanguage ? { 'accept-language': acceptLanguage } : {}) },
    payload: { firstName: 'Joana', phone },
  });
  expectStatus(response, 201);
  const found = expectStatus(
    await api(app, 'GET', '/v1/contacts', { key: tenant.secret.key, query: { q: phone.slice(1) } }),
    200,
  ).data as { id: string; preferredLanguage: string | null }[];
  return found[0] as { id: string; preferredLanguage: string | null };
}

describe("a contact's preferred language", () => {
  it("is the browser's first language when a portal form first meets them, and stays", async () => {
    const first = await lead('+351912000111', 'pt-BR,pt;q=0.9,en;q=0.5');
    expect(first.preferredLanguage).toBe('pt');
    const again = await lead('+351912000111', 'en-GB');
    expect(again).toMatchObject({ id: first.id, preferredLanguage: 'pt' });
    expect((await lead('+351912000222')).preferredLanguage).toBeNull();
  });

  it('is changed through the API, as a lower-case ISO 639-1 code or null', async () => {
    const contact = await lead('+351912000333', 'es');
    const path = `/v1/contacts/${contact.id}`;
    const refused = expectError(
      await api(app, 'PATCH', path, { key: tenant.secret.key, body: { preferredLanguage: 'EN' } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(JSON.stringify(refused)).toContain('preferredLanguage');
    const changed = expectStatus(
      await api(app, 'PATCH', path, { key: tenant.secret.key, body: { preferredLanguage: 'en' } }),
      200,
    ).data;
    expect(changed.preferredLanguage).toBe('en');
    const cleared = expectStatus(
      await api(app, 'PATCH', path, { key: tenant.secret.key, body: { preferredLanguage: null } }),
      200,
    ).data;
    expect(cleared.preferredLanguage).toBeNull();
  });
});
