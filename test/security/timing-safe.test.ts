/**
 * Credentials are never compared byte by byte against a stored secret (docs/reliability.md
 * "Timing-safe credential checks"). A timing measurement through HTTP cannot see nanoseconds and
 * would only be flaky, so these tests prove the structure instead:
 *
 * - API keys: the database holds only SHA-256(key); a request is matched by an index lookup on the
 *   hash of what it presented. A guess that shares its first 37 characters with a real key has a
 *   hash that shares nothing with the real one, so how long the lookup takes says nothing about how
 *   close the guess was. Swapping the stored hash shows there is no other comparison.
 * - The admin token: both sides are hashed to 32 bytes and compared with crypto.timingSafeEqual,
 *   and the token is used nowhere else (checked on the source's syntax tree).
 */
import { readFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/database.ts';
import { generateKey, hashKey } from '../../src/platform/auth/keys.ts';
import { base62Number } from '../../src/platform/ids/ids.ts';
import { createTenant, type Tenant } from '../helpers/factories.ts';
import { api, expectError, expectStatus } from '../helpers/http.ts';
import { ADMIN_TOKEN, buildTestApp, testDatabase } from '../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp({ AUTH_FAILURE_LIMIT: '1000000' });
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

/** `key` with the character at `index` changed and a recomputed checksum: it reaches the database. */
function nearMiss(key: string, index: number): string {
  const body = key.slice(0, -6);
  const changed = body.slice(0, index) + (body[index] === 'A' ? 'B' : 'A') + body.slice(index + 1);
  return changed + base62Number(crc32(changed), 6);
}

const sharedHexPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i += 1;
  return i;
};

async function storedKeyRow(id: string): Promise<string> {
  const db = await testDatabase();
  const rows = await db.systemTx((tx) =>
    queryRows<{ row: string }>(tx, sql`SELECT row_to_json(k)::text AS row FROM api_keys k WHERE id = ${id}`),
  );
  return rows[0]?.row ?? '';
}

describe('API keys: hashed lookup, no comparison with a stored secret', () => {
  it('stores SHA-256(key) and neither the key nor its random part', async () => {
    const row = await storedKeyRow(tenant.secret.id);
    expect(row).toContain(hashKey(tenant.secret.key));
    expect(row).not.toContain(tenant.secret.key);
    expect(row).not.toContain(tenant.secret.key.slice(20, 48));
  });

  it('matches a request by the hash of the presented key alone', async () => {
    // Another well-formed key, never issued: once its hash is stored on the row, it is that key,
    // and the issued key is unknown. Nothing but the hash was compared.
    const other = generateKey('secret', 'live');
    const db = await testDatabase();
    const key = await createTenant(app);
    await db.systemTx((tx) =>
      tx.execute(sql`UPDATE api_keys SET key_hash = ${hashKey(other)} WHERE id = ${key.secret.id}`),
    );
    app.keyVerifier.invalidate();
    expect(expectStatus(await api(app, 'GET', '/v1/me', { key: other }), 200).data.apiKeyId).toBe(
      key.secret.id,
    );
    expectError(await api(app, 'GET', '/v1/me', { key: key.secret.key }), 401, 'UNAUTHORIZED');
  });

  it('gives a near miss in the first or the last character the same refusal, from an unrelated hash', async () => {
    const key = tenant.secret.key;
    const first = nearMiss(key, 'service_sk_live_'.length);
    const last = nearMiss(key, key.length - 7);
    const messages = [];
    for (const guess of [first, last, generateKey('secret', 'live')]) {
      // What the lookup sees: a hash with no more in common with the real one than chance allows.
      expect(sharedHexPrefix(hashKey(guess), hashKey(key))).toBeLessThan(6);
      messages.push(
        expectError(await api(app, 'GET', '/v1/me', { key: guess }), 401, 'UNAUTHORIZED').message,
      );
    }
    expect(new Set(messages).size).toBe(1);
  });
});

describe('the admin token: digests compared with timingSafeEqual', () => {
  it('refuses near misses, other lengths and huge tokens alike, never with a 5xx', async () => {
    const guesses = [
      `x${ADMIN_TOKEN.slice(1)}`,
      `${ADMIN_TOKEN.slice(0, -1)}x`,
      ADMIN_TOKEN.slice(0, -1),
      `${ADMIN_TOKEN}x`,
      'a'.repeat(1_000_000),
      'é',
    ];
    const messages = new Set<string>();
    for (const guess of guesses) {
      const response = await app.inject({
        method: 'GET',
        url: '/admin/v1/organizations',
        headers: { authorization: `Bearer ${guess}` },
      });
      messages.add(expectError(response, 401, 'UNAUTHORIZED').message);
    }
    expect(messages.size).toBe(1);
    const ok = await app.inject({
      method: 'GET',
      url: '/admin/v1/organizations',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expectStatus(ok, 200);
  });

  it('is compared only through sameSecret, which hashes both sides before timingSafeEqual', () => {
    const file = 'src/platform/auth/auth.plugin.ts';
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const adminTokenUses: string[] = [];
    let sameSecret: ts.FunctionDeclaration | undefined;
    const visit = (node: ts.Node) => {
      if (ts.isFunctionDeclaration(node) && node.name?.text === 'sameSecret') sameSecret = node;
      if (ts.isPropertyAccessExpression(node) && node.name.text === 'adminToken') {
        const call = node.parent;
        adminTokenUses.push(
          ts.isCallExpression(call) && ts.isIdentifier(call.expression)
            ? call.expression.text
            : call.getText(),
        );
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    // The token is read in exactly one place: as an argument of sameSecret.
    expect(adminTokenUses).toEqual(['sameSecret']);
    expect(sameSecret, 'sameSecret in auth.plugin.ts').toBeDefined();
    const body = sameSecret?.body?.getText() ?? '';
    expect(body).toMatch(/createHash\('sha256'\)\.update\(given\)\.digest\(\)/);
    expect(body).toMatch(/createHash\('sha256'\)\.update\(expected\)\.digest\(\)/);
    expect(body).toMatch(/return timingSafeEqual\(/);
    expect(body).not.toMatch(/===|!==|==|!=/);
  });
});
