import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../../src/db/schema.ts';
import { operatorCallerOf } from '../../../src/platform/auth/credentials.ts';
import { DEFAULT_SECRET_SCOPES } from '../../../src/platform/auth/scopes.ts';
import { rollApiKey, updateApiKey } from '../../../src/features/api-keys/index.ts';
import { createAgent, createApiKey, createOrganization } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

let app: FastifyInstance;

beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
});

const HOUR = 3_600_000;

function roll(keyId: string, body: unknown = {}, headers: Record<string, string> = {}) {
  return admin(app, 'POST', `/admin/v1/api-keys/${keyId}/roll`, body, headers);
}

/** The api-key events of an organization, oldest first. */
async function keyEvents(organizationId: string) {
  const db = await testDatabase();
  const rows = await db.tenantTx(organizationId, (tx) =>
    tx.select().from(events).where(eq(events.organizationId, organizationId)),
  );
  return rows
    .filter((row) => row.type.startsWith('api_key.'))
    .sort((a, b) => Number(a.sequence) - Number(b.sequence))
    .map((row) => ({
      type: row.type,
      actor: row.actor,
      keyId: (row.data.apiKey as { id: string }).id,
      changes: row.data.changes,
      data: row.data,
    }));
}

describe('roll: happy path', () => {
  it('creates a key with the same settings; both keys work on /v1 during the overlap', async () => {
    const org = await createOrganization(app, { plan: 'ENTERPRISE' });
    const agent = await createAgent(app, org.id);
    const later = new Date(Date.now() + 30 * 24 * HOUR).toISOString();
    const old = await createApiKey(app, org.id, {
      type: 'secret',
      name: 'CRM sync',
      scopes: ['contacts:read', 'deals:read'],
      accessLevel: 2,
      rateLimitPerMinute: 321,
      writeLimitPerMinute: 12,
      agentId: agent.id,
      expiresAt: later,
    });

    const before = Date.now();
    const body = expectStatus(await roll(old.id, { overlapHours: 2 }), 201).data;
    const { key: created, rolledKey } = body;
    expect(Object.keys(body).sort()).toEqual(['key', 'rolledKey']);
    expect(created.id).not.toBe(old.id);
    expect(created.key).toMatch(/^service_sk_live_/);
    expect(created.key).not.toBe(old.key);
    expect(created).toMatchObject({
      organizationId: old.organizationId,
      type: 'secret',
      mode: 'live',
      name: 'CRM sync',
      scopes: ['contacts:read', 'deals:read'],
      accessLevel: 2,
      rateLimitPerMinute: 321,
      writeLimitPerMinute: 12,
      agentId: agent.id,
      status: 'active',
      // The old expiry is later than the overlap: the new key keeps it.
      expiresAt: later,
    });
    expect(rolledKey.id).toBe(old.id);
    const expiry = new Date(rolledKey.expiresAt).getTime();
    expect(expiry).toBeGreaterThanOrEqual(before + 2 * HOUR);
    expect(expiry).toBeLessThanOrEqual(Date.now() + 2 * HOUR);

    const fetchedOld = expectStatus(await admin(app, 'GET', `/admin/v1/api-keys/${old.id}`), 200).data;
    expect(fetchedOld).toMatchObject({ status: 'active', expiresAt: rolledKey.expiresAt });

    // Both keys work with real v1 calls during the overlap.
    expect(expectStatus(await api(app, 'GET', '/v1/me', { key: old.key }), 200)).toBeDefined();
    expect(expectStatus(await api(app, 'GET', '/v1/me', { key: created.key }), 200)).toBeDefined();
  });

  it('overlap 0: the old key answers 401 "expired" at once, the new one works', async () => {
    const org = await createOrganization(app);
    const old = await createApiKey(app, org.id, { type: 'secret' });
    expectStatus(await api(app, 'GET', '/v1/me', { key: old.key }), 200);

    const { key: created } = expectStatus(await roll(old.id, { overlapHours: 0 }), 201).data;
    const error = expectError(await api(app, 'GET', '/v1/me', { key: old.key }), 401, 'UNAUTHORIZED');
    expect(error.message).toMatch(/expired/);
    expectStatus(await api(app, 'GET', '/v1/me', { key: created.key }), 200);
  });

  it('defaults to 24 hours, gives the new key no expiry when the old one ends within the overlap, never lengthens the old key', async () => {
    const org = await createOrganization(app);
    const soon = new Date(Date.now() + HOUR).toISOString();
    const expiring = await createApiKey(app, org.id, { type: 'publishable', expiresAt: soon });
    const rolled = expectStatus(await roll(expiring.id), 201).data;
    expect(rolled.key).toMatchObject({ type: 'publishable', expiresAt: null });
    expect(rolled.key.key).toMatch(/^service_pk_live_/);
    expect(rolled.rolledKey).toEqual({ id: expiring.id, expiresAt: soon });

    const plain = await createApiKey(app, org.id, { type: 'secret', mode: 'test' });
    const before = Date.now();
    const next = expectStatus(await roll(plain.id), 201).data;
    expect(next.key).toMatchObject({ mode: 'test', organizationId: org.testOrganizationId, expiresAt: null });
    const expiry = new Date(next.rolledKey.expiresAt).getTime();
    expect(expiry).toBeGreaterThanOrEqual(before + 24 * HOUR);
    expect(expiry).toBeLessThanOrEqual(Date.now() + 24 * HOUR);
    expectStatus(await api(app, 'GET', '/v1/me', { key: next.key.key }), 200);
  });

  it('records api_key.created (new key) and api_key.updated with changes ["expiresAt"] (old key), by SYSTEM, without the key', async () => {
    const org = await createOrganization(app);
    const old = await createApiKey(app, org.id, { type: 'secret' });
    const { key: created } = expectStatus(await roll(old.id, { overlapHours: 1 }), 201).data;
    const recorded = await keyEvents(org.id);
    const system = { kind: 'SYSTEM', userId: null };
    expect(
      recorded.slice(-2).map(({ type, keyId, changes, actor }) => ({ type, keyId, changes, actor })),
    ).toEqual(
      expect.arrayContaining([
        { type: 'api_key.created', keyId: created.id, changes: undefined, actor: system },
        { type: 'api_key.updated', keyId: old.id, changes: ['expiresAt'], actor: system },
      ]),
    );
    expect(JSON.stringify(recorded)).not.toContain(created.key);
  });

  it('an Idempotency-Key replay answers the same new key and creates no other', async () => {
    const org = await createOrganization(app);
    const old = await createApiKey(app, org.id, { type: 'secret' });
    const headers = { 'idempotency-key': `roll-${old.id}` };
    const first = await roll(old.id, { overlapHours: 3 }, headers);
    const second = await roll(old.id, { overlapHours: 3 }, headers);
    expect(expectStatus(second, 201)).toEqual(expectStatus(first, 201));
    expect(second.headers['idempotent-replayed']).toBe('true');
    const list = expectStatus(await admin(app, 'GET', `/admin/v1/organizations/${org.id}/api-keys`), 200);
    expect(list.data).toHaveLength(2);
    // Another body with the same key is a conflict, as on every POST.
    expectError(await roll(old.id, { overlapHours: 4 }, headers), 409, 'DUPLICATE');
  });
});

describe('roll: errors', () => {
  it.each([[-1], [169], [1.5], ['24'], [null]])(
    'refuses overlapHours %j with 400 naming body.overlapHours',
    async (value) => {
      const org = await createOrganization(app);
      const key = await createApiKey(app, org.id, { type: 'secret' });
      const error = expectError(await roll(key.id, { overlapHours: value }), 400, 'VALIDATION_ERROR');
      expect(error.message).toMatch(/body\.overlapHours/);
      // Nothing changed.
      const fetched = expectStatus(await admin(app, 'GET', `/admin/v1/api-keys/${key.id}`), 200).data;
      expect(fetched.expiresAt).toBeNull();
    },
  );

  it('refuses unknown fields with 400', async () => {
    const org = await createOrganization(app);
    const key = await createApiKey(app, org.id, { type: 'secret' });
    expectError(await roll(key.id, { overlap: 2 }), 400, 'VALIDATION_ERROR');
  });

  it('answers 404 for an unknown or malformed key id', async () => {
    expectError(await roll('key_0000000000000000000000'), 404, 'NOT_FOUND');
    expectError(await roll('nope'), 404, 'NOT_FOUND');
    expectError(
      await roll('key_0000000000000000000000', {}, { 'idempotency-key': 'roll-unknown-key' }),
      404,
      'NOT_FOUND',
    );
  });

  it('answers 409 for a deactivated key and for an expired one, creating nothing', async () => {
    const org = await createOrganization(app);
    const key = await createApiKey(app, org.id, { type: 'secret' });
    expectStatus(await admin(app, 'PATCH', `/admin/v1/api-keys/${key.id}`, { status: 'deactivated' }), 200);
    expect(expectError(await roll(key.id), 409, 'CONFLICT').message).toMatch(/deactivated/);

    const other = await createApiKey(app, org.id, { type: 'secret' });
    expectStatus(await roll(other.id, { overlapHours: 0 }), 201);
    expect(expectError(await roll(other.id), 409, 'CONFLICT').message).toMatch(/expired/);

    const list = expectStatus(await admin(app, 'GET', `/admin/v1/organizations/${org.id}/api-keys`), 200);
    expect(list.data).toHaveLength(3);
  });

  it('answers 401 without the admin token', async () => {
    const org = await createOrganization(app);
    const key = await createApiKey(app, org.id, { type: 'secret' });
    const response = await app.inject({
      method: 'POST',
      url: `/admin/v1/api-keys/${key.id}/roll`,
      payload: {},
    });
    expectError(response, 401, 'UNAUTHORIZED');
  });
});

describe('grantor parameter (the developer console records its own actor)', () => {
  it("rollApiKey and updateApiKey record the grantor's actor", async () => {
    const org = await createOrganization(app);
    const key = await createApiKey(app, org.id, { type: 'secret' });
    const deps = { db: await testDatabase(), verifier: { invalidate() {} } };
    const actor = { kind: 'CONSOLE', userId: 'cs_session_1' } as const;
    // A console session's caller on the key's organization: its actor names the session.
    const grantor = {
      ...(await operatorCallerOf(deps.db, org.id)),
      credential: 'console' as const,
      grants: { scopes: DEFAULT_SECRET_SCOPES, accessLevel: 1 as const },
      actor,
    };
    const rolled = await rollApiKey(deps, grantor, key.id, { overlapHours: 1 });
    await updateApiKey(deps, grantor, rolled.key.id, { status: 'deactivated' });
    const recorded = (await keyEvents(org.id)).filter((entry) => entry.actor.kind === 'CONSOLE');
    expect(recorded.map(({ type, keyId, actor: by }) => ({ type, keyId, by }))).toEqual(
      expect.arrayContaining([
        { type: 'api_key.created', keyId: rolled.key.id, by: actor },
        { type: 'api_key.updated', keyId: key.id, by: actor },
        { type: 'api_key.updated', keyId: rolled.key.id, by: actor },
      ]),
    );
    expect(recorded).toHaveLength(3);
  });
});
