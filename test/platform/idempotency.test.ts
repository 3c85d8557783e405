import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys, idempotencyKeys } from '../../src/db/schema.ts';
import { workerJobs } from '../../src/jobs.ts';
import { createApiKey, createTenant, type Tenant } from '../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../helpers/http.ts';
import { buildProbeApp } from '../helpers/probe-app.ts';
import { idempotencyRecord, notesWithText as probeNotes } from '../helpers/probe.ts';
import { testDatabase } from '../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildProbeApp();
  // Many writes in a minute: lift this key's own limits so they do not interfere.
  tenant = await createTenant(app, { secret: { rateLimitPerMinute: 10_000, writeLimitPerMinute: 10_000 } });
});
afterAll(async () => {
  await app.close();
});

let counter = 0;
const freshKey = () => `test-key-${Date.now()}-${++counter}`;

function note(key: string | undefined, body: Record<string, unknown>, apiKey = tenant.secret.key) {
  return api(app, 'POST', '/v1/probe/notes', {
    key: apiKey,
    body,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });
}

const notesWithText = async (organizationId: string, text: string) =>
  probeNotes(await testDatabase(), organizationId, text);
const storedRecord = async (organizationId: string, key: string) =>
  idempotencyRecord(await testDatabase(), organizationId, key);

describe('Idempotency-Key header', () => {
  it.each([
    ['too short', 'short'],
    ['too long', 'k'.repeat(129)],
    ['a forbidden character', 'has space in it'],
    ['a slash', 'abc/defgh'],
  ])('refuses a key that is %s with 400 naming the header', async (_what, key) => {
    const error = expectError(await note(key, { text: 'x' }), 400, 'VALIDATION_ERROR');
    expect(error.message).toMatch(/^header\.Idempotency-Key must be/);
  });

  it('accepts every allowed character, 8 and 128 long', async () => {
    expectStatus(await note('aZ09._:-', { text: 'x' }), 201);
    expectStatus(
      await note(`${'a'.repeat(120)}${counter++}`.slice(0, 128).padEnd(128, 'b'), { text: 'x' }),
      201,
    );
  });
});

describe('replay', () => {
  it('returns the original response for the same key and body without repeating the operation', async () => {
    const key = freshKey();
    const text = `replay-${key}`;
    const first = await note(key, { text });
    const original = expectStatus(first, 201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await note(key, { text });
    expect(expectStatus(second, 201)).toEqual(original);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await notesWithText(tenant.org.id, text)).toBe(1);
  });

  it('answers 409 DUPLICATE without Retry-After for the same key with another body', async () => {
    const key = freshKey();
    expectStatus(await note(key, { text: 'one' }), 201);
    const response = await note(key, { text: 'two' });
    const error = expectError(response, 409, 'DUPLICATE');
    expect(error.message).toMatch(/different request/);
    expect(response.headers['retry-after']).toBeUndefined();
  });

  it('makes a concurrent duplicate wait for the first request, then replays its answer (no 409)', async () => {
    const key = freshKey();
    const text = `slow-${key}`;
    const slow = note(key, { text, delayMs: 700 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const concurrent = await note(key, { text, delayMs: 700 });
    const first = expectStatus(await slow, 201);
    expect(expectStatus(concurrent, 201)).toEqual(first);
    expect(concurrent.headers['idempotent-replayed']).toBe('true');
    expect(await notesWithText(tenant.org.id, text)).toBe(1);
  });

  it('answers 409 DUPLICATE with Retry-After: 1 only when the first runs past the wait', async () => {
    // The same service with a 200 ms wait (IN_PROGRESS_WAIT_MS is 5 s): the first takes 700 ms after its write.
    const impatient = await buildProbeApp({}, { idempotencyWaitMs: 200 });
    try {
      const key = freshKey();
      const text = `slower-${key}`;
      const call = () =>
        api(impatient, 'POST', '/v1/probe/notes', {
          key: tenant.secret.key,
          body: { text, pauseMs: 700 },
          headers: { 'idempotency-key': key },
        });
      // Warm: a cold app's first request can take longer than the head start below.
      expectStatus(
        await api(impatient, 'POST', '/v1/probe/notes', {
          key: tenant.secret.key,
          body: { text: `warm-${key}` },
        }),
        201,
      );
      const slow = call();
      await new Promise((resolve) => setTimeout(resolve, 250));
      const started = Date.now();
      const concurrent = await call();
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      if ((await testDatabase()).kind === 'pglite') {
        // The embedded database is one connection, held by the first's open transaction until it
        // answers: the duplicate's first statement waits for it whole and replays its answer.
        expect(expectStatus(concurrent, 201)).toEqual(expectStatus(await slow, 201));
        expect(concurrent.headers['idempotent-replayed']).toBe('true');
        expect(await notesWithText(tenant.org.id, text)).toBe(1);
        return;
      }
      const error = expectError(concurrent, 409, 'DUPLICATE');
      expect(error.message).toMatch(/still in progress/);
      expect(concurrent.headers['retry-after']).toBe('1');
      expectStatus(await slow, 201);
      expect((await call()).headers['idempotent-replayed']).toBe('true');
      expect(await notesWithText(tenant.org.id, text)).toBe(1);
    } finally {
      await impatient.close();
    }
  });

  it('scopes keys to the organization: another organization may reuse the same key', async () => {
    const other = await createTenant(app);
    const key = freshKey();
    expectStatus(await note(key, { text: 'mine' }), 201);
    const theirs = await note(key, { text: 'theirs' }, other.secret.key);
    expectStatus(theirs, 201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });

  it('keeps live and test mode apart', async () => {
    const testKey = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      mode: 'test',
      scopes: ['contacts:write'],
    });
    const key = freshKey();
    expectStatus(await note(key, { text: 'live' }), 201);
    const inTest = await note(key, { text: 'test' }, testKey.key);
    expect(expectStatus(inTest, 201).data.livemode).toBe(false);
  });

  it('replays a stored business failure (409) as it was', async () => {
    const key = freshKey();
    const first = expectError(await note(key, { text: 'x', fail: 'conflict' }), 409, 'DUPLICATE');
    const again = await note(key, { text: 'x', fail: 'conflict' });
    // The very same body, including the first request's id; the new request has its own X-Request-Id.
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toEqual(first);
    expect(again.headers['x-request-id']).not.toBe(first.requestId);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });
});

describe('nothing stored for failures the client may retry', () => {
  it('stores nothing for a 400', async () => {
    const key = freshKey();
    expectError(await note(key, { text: '' }), 400, 'VALIDATION_ERROR');
    expect(await storedRecord(tenant.org.id, key)).toBeUndefined();
    expectStatus(await note(key, { text: 'now valid' }), 201);
  });

  it('stores nothing for a 401, 403 or 429', async () => {
    const key = freshKey();
    expectError(await note(key, { text: 'x' }, 'service_sk_live_bogus'), 401, 'UNAUTHORIZED');
    const limited = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['contacts:read'] });
    expectError(await note(key, { text: 'x' }, limited.key), 403, 'FORBIDDEN');
    const oneWrite = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: ['contacts:write'],
      writeLimitPerMinute: 1,
    });
    expectStatus(await note(freshKey(), { text: 'x' }, oneWrite.key), 201);
    expectError(await note(key, { text: 'x' }, oneWrite.key), 429, 'RATE_LIMITED');
    expect(await storedRecord(tenant.org.id, key)).toBeUndefined();
  });

  it('stores nothing for a 500, so the same key can be retried', async () => {
    const key = freshKey();
    expectError(await note(key, { text: 'x', fail: 'after-write' }), 500, 'INTERNAL_ERROR');
    expect(await storedRecord(tenant.org.id, key)).toBeUndefined();
  });
});

describe('races', () => {
  it('20 parallel identical requests have exactly one effect', async () => {
    const key = freshKey();
    const text = `race-${key}`;
    const responses = await Promise.all(Array.from({ length: 20 }, () => note(key, { text, delayMs: 50 })));
    const statuses = responses.map((r) => r.statusCode);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      statuses.join(','),
    ).toBe(true);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    expect(await notesWithText(tenant.org.id, text)).toBe(1);
  });

  it('20 parallel identical admin key creations create exactly one key', async () => {
    const key = freshKey();
    const name = `race-${key}`;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        admin(
          app,
          'POST',
          `/admin/v1/organizations/${tenant.org.id}/api-keys`,
          { type: 'secret', name },
          {
            'idempotency-key': key,
          },
        ),
      ),
    );
    const created = responses.filter((r) => r.statusCode === 201).map((r) => r.json().data.id);
    expect(new Set(created).size).toBe(1);
    const db = await testDatabase();
    const rows = await db.systemTx((tx) => tx.select().from(apiKeys).where(eq(apiKeys.name, name)));
    expect(rows.length).toBe(1);
  });
});

describe('expiry', () => {
  it('records live 24 hours and the worker purges expired ones', async () => {
    const key = freshKey();
    expectStatus(await note(key, { text: 'x' }), 201);
    const record = await storedRecord(tenant.org.id, key);
    expect(record?.status).toBe('completed');
    const ttlHours = ((record?.expiresAt.getTime() ?? 0) - (record?.createdAt.getTime() ?? 0)) / 3_600_000;
    expect(ttlHours).toBeCloseTo(24, 1);

    const db = await testDatabase();
    await db.tenantTx(tenant.org.id, (tx) =>
      tx
        .update(idempotencyKeys)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(and(eq(idempotencyKeys.organizationId, tenant.org.id), eq(idempotencyKeys.key, key))),
    );
    const purge = workerJobs(db).find((job) => job.name === 'idempotency.purge');
    await purge?.run();
    expect(await storedRecord(tenant.org.id, key)).toBeUndefined();
  });

  it('lets an expired key be used again for a new request', async () => {
    const key = freshKey();
    expectStatus(await note(key, { text: 'first' }), 201);
    const db = await testDatabase();
    await db.tenantTx(tenant.org.id, (tx) =>
      tx
        .update(idempotencyKeys)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(and(eq(idempotencyKeys.organizationId, tenant.org.id), eq(idempotencyKeys.key, key))),
    );
    const again = await note(key, { text: 'second' });
    expectStatus(again, 201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });
});
