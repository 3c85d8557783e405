/**
 * A key made without naming scopes follows its type's defaults (decision 0272): it holds the default
 * scopes a later version declares, beside what it was given, while a key made with named scopes holds
 * exactly those; a roll keeps which it is; migration 0039 marks the keys made with the defaults before.
 * An "older" key is a row written as that version wrote it: without the scopes declared since.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { displayPrefix, generateKey, hashKey, type KeyType } from '../../../src/platform/auth/keys.ts';
import { DEFAULT_SECRET_SCOPES, PUBLISHABLE_SCOPES, READ_SCOPES } from '../../../src/platform/auth/scopes.ts';
import { newId } from '../../../src/platform/ids/ids.ts';
import { createApiKey, createOrganization } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

const EMAIL_SCOPES = ['email:read', 'email:write'];
const withoutEmail = (scopes: readonly string[]) => scopes.filter((scope) => !EMAIL_SCOPES.includes(scope));

let app: FastifyInstance;
let orgId: string;

beforeAll(async () => {
  app = await buildTestApp();
  orgId = (await createOrganization(app, { plan: 'BUSINESS' })).id;
});
afterAll(async () => {
  await app.close();
});

/** An api_keys row as an older version wrote it; returns the key and its id. */
async function olderKey(type: KeyType, scopes: readonly string[], follows: boolean) {
  const key = generateKey(type, 'live');
  const id = newId('key');
  const db = await testDatabase();
  await db.tenantTx(orgId, (tx) =>
    queryRows(
      tx,
      sql`INSERT INTO api_keys (id, organization_id, type, mode, key_hash, key_prefix, scopes, scopes_follow_defaults)
          VALUES (${id}, ${orgId}, ${type}, 'live', ${hashKey(key)}, ${displayPrefix(key)},
                  ${`{${scopes.join(',')}}`}::text[], ${follows})`,
    ),
  );
  return { key, id };
}

const scopesOf = async (key: string) =>
  expectStatus(await api(app, 'GET', '/v1/me', { key }), 200).data.scopes as string[];

describe('a key made without naming scopes', () => {
  it('says so, and one made with named scopes says it holds exactly those', async () => {
    const defaults = await createApiKey(app, orgId, { type: 'secret' });
    expect(defaults).toMatchObject({ scopesFollowDefaults: true, scopes: DEFAULT_SECRET_SCOPES });
    const named = await createApiKey(app, orgId, { type: 'secret', scopes: [...DEFAULT_SECRET_SCOPES] });
    expect(named).toMatchObject({ scopesFollowDefaults: false, scopes: DEFAULT_SECRET_SCOPES });
    const listed = expectStatus(await admin(app, 'GET', `/admin/v1/api-keys/${defaults.id}`), 200).data;
    expect(listed.scopesFollowDefaults).toBe(true);
  });

  it('holds the default scopes declared after it was made; a key with named scopes does not', async () => {
    const follows = await olderKey('secret', withoutEmail(DEFAULT_SECRET_SCOPES), true);
    const exact = await olderKey('secret', withoutEmail(DEFAULT_SECRET_SCOPES), false);
    expect(await scopesOf(follows.key)).toEqual(DEFAULT_SECRET_SCOPES);
    expect(await scopesOf(exact.key)).toEqual(withoutEmail(DEFAULT_SECRET_SCOPES));
    expectStatus(await api(app, 'GET', '/v1/emails', { key: follows.key }), 200);
    expectError(await api(app, 'GET', '/v1/emails', { key: exact.key }), 403, 'FORBIDDEN');
    const shown = expectStatus(await admin(app, 'GET', `/admin/v1/api-keys/${follows.id}`), 200).data;
    expect(shown).toMatchObject({ scopes: DEFAULT_SECRET_SCOPES, scopesFollowDefaults: true });

    // A read-only key gets the new read scope only, and never a write one.
    const reader = await olderKey('read_only_secret', withoutEmail(READ_SCOPES), true);
    const held = await scopesOf(reader.key);
    expect(held).toContain('email:read');
    expect(held).not.toContain('email:write');
  });

  it('keeps a scope it was granted beyond the defaults', async () => {
    const granted = await olderKey(
      'secret',
      [...withoutEmail(DEFAULT_SECRET_SCOPES), 'contacts:write'],
      true,
    );
    const held = await scopesOf(granted.key);
    expect(held).toContain('contacts:write');
    expect(held).toEqual(expect.arrayContaining(EMAIL_SCOPES));
  });

  it('stays so when rolled, as a key with named scopes stays exact', async () => {
    const follows = await olderKey('secret', withoutEmail(DEFAULT_SECRET_SCOPES), true);
    const exact = await olderKey('secret', ['contacts:read'], false);
    for (const [old, expected] of [
      [follows, { scopesFollowDefaults: true, scopes: DEFAULT_SECRET_SCOPES }],
      [exact, { scopesFollowDefaults: false, scopes: ['contacts:read'] }],
    ] as const) {
      const rolled = expectStatus(
        await admin(app, 'POST', `/admin/v1/api-keys/${old.id}/roll`, {}),
        201,
      ).data;
      expect(rolled.key).toMatchObject(expected);
    }
  });
});

describe('PATCH /admin/v1/api-keys/{keyId}: scopes', () => {
  const patch = (id: string, body: unknown) => admin(app, 'PATCH', `/admin/v1/api-keys/${id}`, body);

  it('gives a key exactly the named scopes, at once, and records the change', async () => {
    const exact = await olderKey('secret', ['contacts:read'], false);
    expectError(await api(app, 'GET', '/v1/emails', { key: exact.key }), 403, 'FORBIDDEN');
    const changed = expectStatus(
      await patch(exact.id, { scopes: ['contacts:read', 'email:read'] }),
      200,
    ).data;
    expect(changed).toMatchObject({ scopes: ['contacts:read', 'email:read'], scopesFollowDefaults: false });
    expectStatus(await api(app, 'GET', '/v1/emails', { key: exact.key }), 200);
    const db = await testDatabase();
    const [event] = await db.tenantTx(orgId, (tx) =>
      queryRows<{ data: { changes: string[]; apiKey: { id: string; scopes: string[] } } }>(
        tx,
        sql`SELECT data FROM events WHERE type = 'api_key.updated' AND data->'apiKey'->>'id' = ${exact.id}`,
      ),
    );
    expect(event?.data.changes.sort()).toEqual(['scopes', 'scopesFollowDefaults']);
    expect(event?.data.apiKey.scopes).toEqual(['contacts:read', 'email:read']);
  });

  it('makes a key follow the defaults, or stop following them keeping what it holds', async () => {
    const exact = await olderKey('secret', ['webhooks:write'], false);
    const follows = expectStatus(await patch(exact.id, { scopesFollowDefaults: true }), 200).data;
    expect(follows.scopesFollowDefaults).toBe(true);
    expect(follows.scopes).toEqual(['webhooks:write', ...DEFAULT_SECRET_SCOPES]);
    expect(await scopesOf(exact.key)).toEqual(['webhooks:write', ...DEFAULT_SECRET_SCOPES]);

    const older = await olderKey('secret', withoutEmail(DEFAULT_SECRET_SCOPES), true);
    const frozen = expectStatus(await patch(older.id, { scopesFollowDefaults: false }), 200).data;
    expect(frozen).toMatchObject({ scopesFollowDefaults: false, scopes: DEFAULT_SECRET_SCOPES });
    expect(await scopesOf(older.key)).toEqual(DEFAULT_SECRET_SCOPES);
  });

  it("refuses a scope outside the key's type, and an unknown one, naming body.scopes", async () => {
    const reader = await olderKey('read_only_secret', ['contacts:read'], false);
    const refused = expectError(await patch(reader.id, { scopes: ['email:write'] }), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(refused)).toMatch(/body\.scopes/);
    const unknown = expectError(await patch(reader.id, { scopes: ['email:send'] }), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(unknown)).toMatch(/scopes/);
    expect(await scopesOf(reader.key)).toEqual(['contacts:read']);
  });

  it('answers 404 for an unknown key id', async () => {
    expectError(await patch(newId('key'), { scopes: ['contacts:read'] }), 404, 'NOT_FOUND');
  });
});

describe('migration 0039', () => {
  it('marks the keys that held every default scope of their type before email, and no narrower one', async () => {
    const before = {
      secret: await olderKey('secret', withoutEmail(DEFAULT_SECRET_SCOPES), false),
      secretGranted: await olderKey(
        'secret',
        [...withoutEmail(DEFAULT_SECRET_SCOPES), 'webhooks:write'],
        false,
      ),
      narrowed: await olderKey('secret', withoutEmail(DEFAULT_SECRET_SCOPES).slice(1), false),
      reader: await olderKey('read_only_secret', withoutEmail(READ_SCOPES), false),
      readerNarrowed: await olderKey('read_only_secret', ['contacts:read'], false),
      publishable: await olderKey('publishable', PUBLISHABLE_SCOPES, false),
      publishableNarrowed: await olderKey('publishable', ['portal:read'], false),
    };
    const file = new URL('../../../db/migrations/0039_api_key_default_scopes.sql', import.meta.url);
    const backfill = readFileSync(file, 'utf8')
      .split('--> statement-breakpoint')
      .map((statement) => statement.trim())
      .find((statement) => /UPDATE "api_keys"/.test(statement));
    expect(backfill).toBeDefined();
    const db = await testDatabase();
    const marked = await db.tenantTx(orgId, async (tx) => {
      await queryRows(tx, sql.raw(backfill as string));
      return queryRows<{ id: string }>(
        tx,
        sql`SELECT id FROM api_keys WHERE organization_id = ${orgId} AND scopes_follow_defaults`,
      );
    });
    const ids = new Set(marked.map((row) => row.id));
    expect(Object.fromEntries(Object.entries(before).map(([name, key]) => [name, ids.has(key.id)]))).toEqual({
      secret: true,
      secretGranted: true,
      narrowed: false,
      reader: true,
      readerNarrowed: false,
      publishable: true,
      publishableNarrowed: false,
    });
  });
});
