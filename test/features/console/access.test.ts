/**
 * Access to the developer console (issue 22, item 1): a one-time link the operator mints opens an
 * 8-hour session cookie for that organization only; changes need this origin and the CSRF token;
 * the pages carry a strict Content-Security-Policy.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/database.ts';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { createApiKey, createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { consoleClient, ORIGIN } from './support.ts';

type Client = ReturnType<typeof consoleClient>;

let app: FastifyInstance;
let tenant: Tenant;
let other: Tenant;
let mintLink: Client['mintLink'];
let open: Client['open'];
let signIn: Client['signIn'];
let consoleCall: Client['consoleCall'];

beforeAll(async () => {
  app = await buildTestApp();
  ({ mintLink, open, signIn, consoleCall } = consoleClient(app));
  tenant = await createTenant(app);
  other = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

async function keyCount(organizationId: string): Promise<number> {
  const db = await testDatabase();
  const [row] = await db.systemTx((tx) =>
    queryRows<{ count: number }>(
      tx,
      sql`SELECT count(*)::int AS count FROM api_keys WHERE organization_id = ${organizationId}`,
    ),
  );
  return row?.count ?? 0;
}

describe('console links', () => {
  it('mint a 15-minute link that opens an 8-hour HttpOnly SameSite=Strict session once', async () => {
    const link = await mintLink(tenant.org.id);
    expect(link.url).toMatch(/^http:\/\/[^/]+\/console\/start\?token=[A-Za-z0-9_-]{43}$/);
    const minutes = (Date.parse(link.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14);
    expect(minutes).toBeLessThanOrEqual(15);

    const first = await open(link.url);
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe('/console/');
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toMatch(
      /^agency_console=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=28800$/,
    );

    // Used once: the second opening is refused, with a page saying so.
    const second = await open(link.url);
    expect(second.statusCode).toBe(410);
    expect(second.body).toMatch(/not valid/);
    expect(second.headers['set-cookie']).toBeUndefined();
    expect((await open('http://localhost/console/start?token=made-up')).statusCode).toBe(410);
    expect((await open('http://localhost/console/start')).statusCode).toBe(410);
  });

  it('answer 404 for an unknown organization and 400 for a test twin', async () => {
    expectStatus(await admin(app, 'POST', '/admin/v1/organizations/org_unknown/console-links'), 404);
    const twin = tenant.org.testOrganizationId as string;
    const refused = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${twin}/console-links`),
      400,
    );
    expect(refused.error.details[0].field).toBe('path.orgId');
  });

  it('need the admin token', async () => {
    const response = await api(app, 'POST', `/admin/v1/organizations/${tenant.org.id}/console-links`, {
      key: tenant.secret.key,
    });
    expect(response.statusCode).toBe(401);
  });
});

describe('console sessions', () => {
  it('show their own organization only, with a CSRF token', async () => {
    const mine = await signIn(tenant.org.id);
    const session = (await consoleCall(mine.cookie, 'GET', '/console/api/session')).json();
    expect(session.organization).toEqual({
      id: tenant.org.id,
      name: tenant.org.name,
      testOrganizationId: tenant.org.testOrganizationId,
    });
    expect(session.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const theirs = await signIn(other.org.id);
    const keys = (await consoleCall(theirs.cookie, 'GET', '/console/api/keys')).json().data;
    expect(keys.map((key: { organizationId: string }) => key.organizationId)).not.toContain(tenant.org.id);
    // Their session cannot revoke my key: as missing as any other id.
    const revoke = await consoleCall(theirs.cookie, 'POST', `/console/api/keys/${tenant.secret.id}/revoke`, {
      headers: { origin: ORIGIN, 'x-csrf-token': theirs.csrf },
    });
    expect(revoke.statusCode).toBe(404);
    expectStatus(await api(app, 'GET', '/v1/me', { key: tenant.secret.key }), 200);
  });

  it('refuse a request without the cookie, with a foreign or missing Origin, or without the CSRF token', async () => {
    const { cookie, csrf } = await signIn(tenant.org.id);
    expect((await consoleCall(null, 'GET', '/console/api/session')).statusCode).toBe(401);
    expect(
      (
        await consoleCall(
          'agency_console=forged-forged-forged-forged-forged-forged-xx',
          'GET',
          '/console/api/keys',
        )
      ).statusCode,
    ).toBe(401);
    const create = (headers: Record<string, string>) =>
      consoleCall(cookie, 'POST', '/console/api/keys', { body: { type: 'secret', name: 'csrf' }, headers });
    const foreign = await create({ origin: 'https://evil.example', 'x-csrf-token': csrf });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.message).toMatch(/cross-origin/);
    expect((await create({ 'x-csrf-token': csrf })).statusCode).toBe(403);
    const noToken = await create({ origin: ORIGIN });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().error.message).toMatch(/X-CSRF-Token/);
    expect((await create({ origin: ORIGIN, 'x-csrf-token': `${csrf}x` })).statusCode).toBe(403);
    // With both: the key is made, shown once.
    const made = await create({ origin: ORIGIN, 'x-csrf-token': csrf });
    expect(made.statusCode).toBe(201);
    expect(made.json().data.key).toMatch(/^service_sk_live_/);
    const listed = (await consoleCall(cookie, 'GET', '/console/api/keys')).json().data;
    expect(JSON.stringify(listed)).not.toContain(made.json().data.key);
  });

  it('end on sign-out and when the operator revokes them', async () => {
    const first = await signIn(tenant.org.id);
    const signOut = await consoleCall(first.cookie, 'POST', '/console/api/sign-out', {
      headers: { origin: ORIGIN, 'x-csrf-token': first.csrf },
    });
    expect(signOut.statusCode).toBe(204);
    expect((await consoleCall(first.cookie, 'GET', '/console/api/session')).statusCode).toBe(401);

    const a = await signIn(tenant.org.id);
    const b = await signIn(tenant.org.id);
    const theirs = await signIn(other.org.id);
    const revoked = expectStatus(
      await admin(app, 'DELETE', `/admin/v1/organizations/${tenant.org.id}/console-sessions`),
      200,
    );
    expect(revoked.data.revoked).toBeGreaterThanOrEqual(2);
    for (const session of [a, b])
      expect((await consoleCall(session.cookie, 'GET', '/console/api/session')).statusCode).toBe(401);
    expect((await consoleCall(theirs.cookie, 'GET', '/console/api/session')).statusCode).toBe(200);
  });

  it('refuse approval scopes from the console (those need the operator)', async () => {
    const { cookie, csrf } = await signIn(tenant.org.id);
    const response = await consoleCall(cookie, 'POST', '/console/api/keys', {
      body: { type: 'secret', scopes: ['contacts:write'] },
      headers: { origin: ORIGIN, 'x-csrf-token': csrf },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details[0].field).toBe('body.scopes');
  });
});

describe('console keys', () => {
  it('create, roll (both keys work during the overlap) and revoke, each recorded with actor CONSOLE', async () => {
    const { cookie, csrf } = await signIn(tenant.org.id);
    const headers = { origin: ORIGIN, 'x-csrf-token': csrf };
    const made = (
      await consoleCall(cookie, 'POST', '/console/api/keys', {
        body: { type: 'secret', name: 'roll me' },
        headers,
      })
    ).json().data;
    const rolled = await consoleCall(cookie, 'POST', `/console/api/keys/${made.id}/roll`, {
      body: { overlapHours: 2 },
      headers,
    });
    expect(rolled.statusCode).toBe(201);
    const { key, rolledKey } = rolled.json().data;
    expect(rolledKey.id).toBe(made.id);
    for (const k of [made.key, key.key]) expectStatus(await api(app, 'GET', '/v1/me', { key: k }), 200);
    const revoked = await consoleCall(cookie, 'POST', `/console/api/keys/${key.id}/revoke`, { headers });
    expect(revoked.json().data.status).toBe('deactivated');
    expect((await api(app, 'GET', '/v1/me', { key: key.key })).statusCode).toBe(401);

    const log = expectStatus(
      await api(app, 'GET', '/v1/event-log', {
        key: tenant.secret.key,
        query: { type: 'api_key.*', order: 'desc', pageSize: '4' },
      }),
      200,
    ).data;
    const session = (await consoleCall(cookie, 'GET', '/console/api/session')).json();
    expect(session.organization.id).toBe(tenant.org.id);
    expect(log.map((event: { type: string }) => event.type)).toEqual([
      'api_key.updated',
      'api_key.updated',
      'api_key.created',
      'api_key.created',
    ]);
    for (const event of log)
      expect(event.actor, JSON.stringify(event)).toMatchObject({
        kind: 'CONSOLE',
        userId: expect.stringMatching(/^cs_/),
      });
  });
});

describe('console keys never grow privilege (decision 0241)', () => {
  it('refuse to roll an operator-made level-3 key with approval scopes: 403, no key, nothing changed', async () => {
    const strong = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: [...SCOPES],
      accessLevel: 3,
    });
    const { cookie, csrf } = await signIn(tenant.org.id);
    const headers = { origin: ORIGIN, 'x-csrf-token': csrf };
    const before = await keyCount(tenant.org.id);
    const rolled = await consoleCall(cookie, 'POST', `/console/api/keys/${strong.id}/roll`, {
      body: { overlapHours: 0 },
      headers,
    });
    const error = expectError(rolled, 403, 'FORBIDDEN');
    expect(error.message).toContain('only your operator can');
    expect(error.message).toContain('listings:write');
    expect(error.message).toContain('access level 3');
    expect(rolled.body).not.toMatch(/service_sk_/);
    expect(await keyCount(tenant.org.id)).toBe(before);
    // The old key is untouched (no expiry set by the refused roll) and keeps working.
    expectStatus(await api(app, 'GET', '/v1/me', { key: strong.key }), 200);
    const listed = (await consoleCall(cookie, 'GET', '/console/api/keys')).json().data as {
      id: string;
      expiresAt: string | null;
    }[];
    expect(listed.find((key) => key.id === strong.id)?.expiresAt).toBeNull();
  });

  it('still roll a key the console could have made itself', async () => {
    const plain = await createApiKey(app, tenant.org.id, { type: 'secret' });
    const { cookie, csrf } = await signIn(tenant.org.id);
    const rolled = await consoleCall(cookie, 'POST', `/console/api/keys/${plain.id}/roll`, {
      body: { overlapHours: 0 },
      headers: { origin: ORIGIN, 'x-csrf-token': csrf },
    });
    expect(rolled.statusCode, rolled.body).toBe(201);
  });

  it('let the operator roll the operator-made key', async () => {
    const strong = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: [...SCOPES],
      accessLevel: 3,
    });
    const rolled = expectStatus(await admin(app, 'POST', `/admin/v1/api-keys/${strong.id}/roll`, {}), 201);
    expect(rolled.data.key.scopes).toEqual([...SCOPES]);
    expect(rolled.data.key.accessLevel).toBe(3);
  });
});

describe('console events', () => {
  it("list the organization's events newest first, and where one was delivered; another's event is 404", async () => {
    const { cookie } = await signIn(tenant.org.id);
    const events = (
      await consoleCall(cookie, 'GET', '/console/api/events?type=api_key.created&pageSize=2')
    ).json();
    expect(events.data.length).toBeGreaterThan(0);
    const [newest, older] = events.data;
    if (older) expect(newest.sequence).toBeGreaterThan(older.sequence);
    const deliveries = await consoleCall(cookie, 'GET', `/console/api/events/${newest.id}/deliveries`);
    expect(deliveries.statusCode).toBe(200);
    expect(deliveries.json().data).toEqual([]);
    const theirs = await signIn(other.org.id);
    expect(
      (await consoleCall(theirs.cookie, 'GET', `/console/api/events/${newest.id}/deliveries`)).statusCode,
    ).toBe(404);
    expect(
      (await consoleCall(theirs.cookie, 'GET', '/console/api/events/nonsense/deliveries')).statusCode,
    ).toBe(404);
  });
});

describe('console pages', () => {
  it('carry a strict Content-Security-Policy with no inline script, and are never cached or framed', async () => {
    for (const url of ['/console/', '/console/assets/console.js', '/console/assets/console.css']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers['cache-control']).toBe('no-store');
    }
    const page = await app.inject({ method: 'GET', url: '/console/' });
    expect(page.body).not.toMatch(/<script>(?!<)|<script(?![^>]*\bsrc=)[^>]*>\s*\S/);
    expect(page.body).not.toMatch(/ on[a-z]+=/);
    expect((await app.inject({ method: 'GET', url: '/console/assets/..%2Fpackage.json' })).statusCode).toBe(
      404,
    );
  });

  it('are not in the public API document', async () => {
    const document = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/console'))).toEqual([]);
  });
});
