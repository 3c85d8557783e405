// One-click unsubscribe (issue 41, RFC 8058, decision 0269), over HTTP with no key: the link's GET shows
// a page and changes nothing (mail scanners open links); its POST, as a mail client sends it or as the
// page's button does, records a REVOKED EMAIL consent (source EMAIL_UNSUBSCRIBE) and
// `contact.consent_changed`, once however often it comes. A token not ours, of another organization's
// contact, of a contact erased since, is a 404; a suspended organization's link a 403.
import type { FastifyInstance, InjectOptions } from 'fastify';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manageUrl } from '../../../src/features/appointments/index.ts';
import { unsubscribeToken, unsubscribeUrl } from '../../../src/features/email/index.ts';
import { openSecretBox } from '../../../src/platform/crypto/secrets-key.ts';
import { createContact, createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { rows } from './support.ts';

/** The process's secrets box: the test app's too (DATA_DIR=memory://, no SECRETS_KEY). */
const secrets = openSecretBox();
const FORM = 'application/x-www-form-urlencoded';

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { org: { name: 'Costa & Mar' } });
  expectStatus(
    await admin(app, 'PATCH', `/admin/v1/organizations/${tenant.org.id}`, { defaultLanguage: 'es' }),
    200,
  );
});
afterAll(async () => {
  await app.close();
});

async function newContact(owner: Tenant = tenant): Promise<string> {
  return (await createContact(app, owner, { via: 'api', body: { firstName: 'Marta', email: null } })).id;
}

const link = (contactId: string, orgId = tenant.org.id) => unsubscribeToken(secrets, orgId, contactId);

/** The visitor's own call: no key, only what a browser or mail client sends. */
function visit(method: 'GET' | 'POST', token: string, payload?: string, type?: string) {
  const request: InjectOptions = { method, url: `/email/unsubscribe/${token}`, headers: {} };
  if (type !== undefined) (request.headers as Record<string, string>)['content-type'] = type;
  if (payload !== undefined) request.payload = payload;
  return app.inject(request);
}
const oneClick = (token: string) => visit('POST', token, 'List-Unsubscribe=One-Click', FORM);

const consents = async (contactId: string) =>
  expectStatus(await api(app, 'GET', `/v1/contacts/${contactId}/consents`, { key: tenant.secret.key }), 200)
    .data;
const consentEvents = (contactId: string) =>
  rows<{ data: { consent: Record<string, unknown> }; actor: { kind: string } }>(
    sql`SELECT data, actor FROM events WHERE type = 'contact.consent_changed'
          AND data->'consent'->>'contactId' = ${contactId} ORDER BY created_at, id`,
  );

describe('the unsubscribe link', () => {
  it('is the service origin, /email/unsubscribe/, and a token naming the organization and contact', () => {
    const url = unsubscribeUrl(
      secrets,
      'https://crm.example',
      'org_0VhJ3kQ2Zt8mX1pR4sT6uE',
      'ct_0VhJ3kQ2Zt8mX1pR4sT6uE',
    );
    expect(url).toMatch(
      /^https:\/\/crm\.example\/email\/unsubscribe\/org_0VhJ3kQ2Zt8mX1pR4sT6uE\.ct_0VhJ3kQ2Zt8mX1pR4sT6uE\.[0-9a-f]{8}\.[A-Za-z0-9_-]{22}$/,
    );
  });
});

describe('GET /email/unsubscribe/{token}', () => {
  it("shows a page in the organization's language (the contact has none) with one POST button, and changes nothing", async () => {
    const contactId = await newContact();
    const response = await visit('GET', link(contactId));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<html lang="es">');
    expect(response.body).toContain('¿Dejar de recibir correos de Costa &amp; Mar?');
    expect(response.body).toMatch(
      /<form method="post"><button type="submit">Darme de baja<\/button><\/form>/,
    );
    expect(response.headers['content-security-policy']).toContain("form-action 'self'");
    expect(response.headers['content-security-policy']).toContain("default-src 'none'");
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['cache-control']).toBe('no-store');
    // Its own limit, per link.
    expect(response.headers['x-ratelimit-limit']).toBe('60');
    // A second look, as a mail scanner's: still nothing recorded.
    expect((await visit('GET', link(contactId))).statusCode).toBe(200);
    const { current, history } = await consents(contactId);
    expect(current.EMAIL).toBeNull();
    expect(history).toEqual([]);
    expect(await consentEvents(contactId)).toEqual([]);
  });

  it("speaks the contact's preferred language when it has one", async () => {
    const contactId = (
      await createContact(app, tenant, {
        via: 'api',
        body: { firstName: 'Joana', email: null, preferredLanguage: 'pt' },
      })
    ).id;
    const page = await visit('GET', link(contactId));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="pt">');
  });

  it('says so when the contact is unsubscribed already', async () => {
    const contactId = await newContact();
    expect((await oneClick(link(contactId))).statusCode).toBe(200);
    const page = await visit('GET', link(contactId));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('No recibirás más correos de Costa &amp; Mar.');
    expect(page.body).not.toContain('<form');
  });
});

describe('POST /email/unsubscribe/{token}', () => {
  it("one click (List-Unsubscribe=One-Click) revokes the contact's EMAIL consent and records the event", async () => {
    const contactId = await newContact();
    const response = await oneClick(link(contactId));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('No recibirás más correos de Costa &amp; Mar.');
    const { current, history } = await consents(contactId);
    expect(current.EMAIL).toMatchObject({ status: 'REVOKED', source: 'EMAIL_UNSUBSCRIBE' });
    // The other channels are not this link's business.
    expect(current.MESSAGING).toBeNull();
    expect(history).toMatchObject([{ channel: 'EMAIL', status: 'REVOKED', actorKind: 'API' }]);
    const events = await consentEvents(contactId);
    expect(events).toMatchObject([
      {
        data: { consent: { contactId, channel: 'EMAIL', status: 'REVOKED', source: 'EMAIL_UNSUBSCRIBE' } },
        actor: { kind: 'API' },
      },
    ]);
  });

  it('again: 200, and nothing more recorded', async () => {
    const contactId = await newContact();
    for (let i = 0; i < 3; i++) expect((await oneClick(link(contactId))).statusCode).toBe(200);
    expect((await visit('POST', link(contactId), '', FORM)).statusCode).toBe(200);
    expect((await consents(contactId)).history).toHaveLength(1);
    expect(await consentEvents(contactId)).toHaveLength(1);
  });

  it("takes the page's empty form, no body at all, and multipart/form-data", async () => {
    for (const [payload, type] of [
      ['', FORM],
      ['List-Unsubscribe=One-Click', `${FORM}; charset=utf-8`],
      [undefined, undefined],
      [
        '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x--\r\n',
        'multipart/form-data; boundary=x',
      ],
    ] as const) {
      const contactId = await newContact();
      const response = await visit('POST', link(contactId), payload, type);
      expect(response.statusCode, `${type}: ${response.body}`).toBe(200);
      expect((await consents(contactId)).current.EMAIL?.status, type).toBe('REVOKED');
    }
  });

  it('refuses a JSON body (415), recording nothing', async () => {
    const contactId = await newContact();
    const response = await visit(
      'POST',
      link(contactId),
      '{"List-Unsubscribe":"One-Click"}',
      'application/json',
    );
    expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect((await consents(contactId)).current.EMAIL).toBeNull();
  });

  it('is taken while the organization is read-only', async () => {
    const readOnly = await createTenant(app);
    const contactId = await newContact(readOnly);
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${readOnly.org.id}`, { readOnly: true }),
      200,
    );
    expect((await oneClick(link(contactId, readOnly.org.id))).statusCode).toBe(200);
    const { current } = expectStatus(
      await api(app, 'GET', `/v1/contacts/${contactId}/consents`, { key: readOnly.secret.key }),
      200,
    ).data;
    expect(current.EMAIL.status).toBe('REVOKED');
  });
});

describe('what the link does not open', () => {
  it('a token not ours: forged, cut, garbage or a visit link — 404 in the error envelope', async () => {
    const contactId = await newContact();
    const token = link(contactId);
    const forged = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const [org, contact, keyId, tag] = token.split('.') as [string, string, string, string];
    const visitLink = new URL(
      manageUrl(secrets, 'http://x', org, 'apt_0VhJ3kQ2Zt8mX1pR4sT6uE'),
    ).pathname.split('/')[2] as string;
    for (const bad of [
      forged,
      `${org}.${contact}.${keyId}`,
      `${org}.${contact}.${keyId}.${tag}.x`,
      'nothing',
      visitLink,
    ]) {
      for (const method of ['GET', 'POST'] as const) {
        const error = expectError(await visit(method, bad, '', FORM), 404, 'NOT_FOUND');
        expect(error.message).toContain('Unsubscribe link');
      }
    }
    expect((await consents(contactId)).current.EMAIL).toBeNull();
  });

  it("another organization's contact: a token for this organization naming it, or its organization swapped in, is a 404", async () => {
    const other = await createTenant(app);
    const theirs = await newContact(other);
    const ours = await newContact();
    // Signed, but the contact is not this organization's.
    expectError(await oneClick(link(theirs, tenant.org.id)), 404, 'NOT_FOUND');
    // Their link with our organization put in: the signature no longer fits.
    const [, contact, keyId, tag] = link(theirs, other.org.id).split('.');
    expectError(await oneClick(`${tenant.org.id}.${contact}.${keyId}.${tag}`), 404, 'NOT_FOUND');
    // Our contact's id in their link: likewise.
    const [, , theirKey, theirTag] = link(theirs, other.org.id).split('.');
    expectError(await oneClick(`${other.org.id}.${ours}.${theirKey}.${theirTag}`), 404, 'NOT_FOUND');
    const theirConsents = expectStatus(
      await api(app, 'GET', `/v1/contacts/${theirs}/consents`, { key: other.secret.key }),
      200,
    ).data;
    expect(theirConsents.current.EMAIL).toBeNull();
    expect((await consents(ours)).current.EMAIL).toBeNull();
  });

  it('a contact erased (or deleted) since: 404', async () => {
    const erased = await newContact();
    const deleted = await newContact();
    expectStatus(await api(app, 'DELETE', `/v1/contacts/${erased}`, { key: tenant.secret.key }), 200);
    expectStatus(
      await admin(app, 'DELETE', `/admin/v1/organizations/${tenant.org.id}/contacts/${deleted}`),
      200,
    );
    for (const contactId of [erased, deleted]) {
      expectError(await visit('GET', link(contactId)), 404, 'NOT_FOUND');
      expectError(await oneClick(link(contactId)), 404, 'NOT_FOUND');
    }
  });

  it("a suspended organization's link: 403, nothing recorded; the link works again once it is active", async () => {
    const suspended = await createTenant(app);
    const contactId = await newContact(suspended);
    const token = link(contactId, suspended.org.id);
    const path = `/admin/v1/organizations/${suspended.org.id}`;
    expectStatus(await admin(app, 'PATCH', path, { isActive: false }), 200);
    expectError(await visit('GET', token), 403, 'FORBIDDEN');
    expectError(await oneClick(token), 403, 'FORBIDDEN');
    expectStatus(await admin(app, 'PATCH', path, { isActive: true }), 200);
    const { current } = expectStatus(
      await api(app, 'GET', `/v1/contacts/${contactId}/consents`, { key: suspended.secret.key }),
      200,
    ).data;
    expect(current.EMAIL).toBeNull();
    expect((await oneClick(token)).statusCode).toBe(200);
  });

  it('is limited per link: the 61st request in a minute is a 429', async () => {
    const token = link(await newContact());
    for (let i = 0; i < 60; i++) expect((await visit('GET', token)).statusCode).toBe(200);
    const refused = await visit('GET', token);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});
