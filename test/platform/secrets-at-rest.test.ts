/**
 * Secrets at rest (issue 19 item 9, decision 0160), through the HTTP API: webhook signing secrets
 * and idempotent responses that show a secret are stored sealed; no column of either table holds a
 * plaintext secret; replays give the original bytes; deliveries verify with the plaintext secret;
 * SECRETS_KEY rotates with SECRETS_KEY_PREVIOUS; a process without the right key fails clearly.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { keyIdOf, SecretBox } from '../../src/platform/crypto/secret-box.ts';
import { DeliveryWorker } from '../../src/features/webhooks/webhooks.worker.ts';
import { startJobs, type RunningJobs } from '../../src/platform/jobs/scheduler.ts';
import { runStartSteps } from '../../src/startup.ts';
import { Receiver } from '../features/webhooks/receiver.ts';
import { deliveriesOf, emit, eventually } from '../features/webhooks/support.ts';
import { createTenant, FAST, type Tenant } from '../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../helpers/http.ts';
import { buildTestApp, openTestDatabase } from '../helpers/test-app.ts';

const stripe = new Stripe('sk_test_unused');
const KEY_1 = randomBytes(32);
const KEY_2 = randomBytes(32);
const OTHER_KEY = randomBytes(32);
const env = (current: Buffer, previous: Buffer[] = []) => ({
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  LOG_LEVEL: 'debug',
  SECRETS_KEY: current.toString('base64'),
  SECRETS_KEY_PREVIOUS: previous.map((key) => key.toString('hex')).join(','),
});
const quiet = { info: () => undefined };

let db: Database;
let receiver: Receiver;
let logs = '';
const logStream = new Writable({
  write(chunk, _encoding, done) {
    logs += chunk.toString();
    done();
  },
});
const apps: FastifyInstance[] = [];
const workers: RunningJobs[] = [];

async function appWith(current: Buffer, previous: Buffer[] = []) {
  const app = await buildTestApp(env(current, previous), { logStream, db });
  apps.push(app);
  return app;
}

/** Every column of the organization's subscriptions and idempotency records, as one text. */
async function storedText(organizationId: string): Promise<string> {
  const result = (await db.systemTx((tx) =>
    tx.execute(sql`
      SELECT coalesce((SELECT json_agg(s)::text FROM webhook_subscriptions s WHERE s.organization_id = ${organizationId}), '')
          || coalesce((SELECT json_agg(k)::text FROM idempotency_keys k WHERE k.organization_id = ${organizationId}), '')
          AS text`),
  )) as unknown as { rows: { text: string }[] };
  return result.rows[0]?.text ?? '';
}

/** The plaintext and its base64 body (a `whsec_` secret's key bytes), neither of which may be stored. */
function expectAbsent(haystack: string, secret: string) {
  expect(haystack).not.toContain(secret);
  expect(haystack).not.toContain(secret.replace(/^whsec_/, ''));
  expect(haystack).not.toContain(secret.slice(-24));
}

const hookBody = (path: string) => ({
  url: receiver.url(path),
  eventTypes: ['contact.*'],
  description: 'sealed',
});

/** Runs a worker with `box` until the delivery of `eventId` to `hookId` is final; returns it. */
async function deliverWith(
  box: SecretBox,
  app: FastifyInstance,
  tenant: Tenant,
  hookId: string,
  eventId: string,
) {
  // Its own silent log: the wrong-key case logs an error per attempt, which is the point there.
  const worker = startJobs(
    [
      new DeliveryWorker(
        db,
        {
          webhookRetryDelaysMs: [0, 300, 300, 300, 300],
          webhookTimeoutMs: 8_000,
          webhookAllowPrivateUrls: true,
          pollMs: 20,
          secrets: box,
        },
        { error: () => undefined },
      ).job(),
    ],
    pino({ level: 'silent' }),
  );
  workers.push(worker);
  try {
    return await eventually(async () => {
      const delivery = (await deliveriesOf(app, tenant.secret.key, hookId)).find(
        (d) => d.eventId === eventId,
      );
      expect(delivery?.status).toBeDefined();
      expect(delivery?.status).not.toBe('PENDING');
      return delivery as NonNullable<typeof delivery>;
    });
  } finally {
    await worker.stop();
  }
}

/** The request the receiver got for `eventId`, checked as a receiver would with each plaintext secret. */
function expectSignedWith(path: string, eventId: string, secrets: string[]) {
  const request = receiver.at(path).find((received) => received.headers['webhook-id'] === eventId);
  expect(request, `no delivery of ${eventId} at ${path}`).toBeDefined();
  for (const secret of secrets) {
    stripe.webhooks.constructEvent(
      request?.body as string,
      request?.headers['x-service-signature'] as string,
      secret,
    );
  }
}

function sameBytes(replay: LightMyRequestResponse, original: LightMyRequestResponse) {
  expect(replay.statusCode, replay.body).toBe(original.statusCode);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.body).toBe(original.body);
}

/**
 * Runs `change` as the table owner with the sealed-value checks lifted, the way an earlier version
 * wrote its rows (before migration 0010), then puts the checks back as the migration left them.
 */
async function asEarlierVersion(...changes: ReturnType<typeof sql>[]) {
  await db.systemTx(async (tx) => {
    await tx.execute(sql`RESET ROLE`);
    await tx.execute(
      sql`ALTER TABLE webhook_subscriptions DROP CONSTRAINT webhook_subscriptions_secret_sealed`,
    );
    await tx.execute(sql`ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_response_body_sealed`);
    for (const change of changes) await tx.execute(change);
    await tx.execute(sql`ALTER TABLE webhook_subscriptions ADD CONSTRAINT webhook_subscriptions_secret_sealed
                         CHECK (starts_with(secret, 'enc:v1:')) NOT VALID`);
    await tx.execute(sql`ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_response_body_sealed
                         CHECK (response_body IS NULL OR starts_with(response_body, 'enc:v1:')) NOT VALID`);
  });
}

beforeAll(async () => {
  // Its own database: the start steps walk every row, and files may share the usual one (PGlite).
  db = await openTestDatabase();
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await receiver.close();
  await Promise.all(apps.map((app) => app.close()));
  await db.close();
});

describe('secrets at rest', () => {
  let app: FastifyInstance;
  let tenant: Tenant;
  let keyCreated: LightMyRequestResponse;
  let hookCreated: LightMyRequestResponse;
  let rotated: LightMyRequestResponse;
  let hook: { id: string; secret: string };
  let apiKey: string;
  let newSecret: string;

  const createKey = (on: FastifyInstance) =>
    admin(
      on,
      'POST',
      `/admin/v1/organizations/${tenant.org.id}/api-keys`,
      { type: 'secret', name: 'sealed' },
      {
        'idempotency-key': 'sealed-api-key-0001',
      },
    );
  const createHook = (on: FastifyInstance) =>
    api(on, 'POST', '/v1/webhooks', {
      key: tenant.secret.key,
      body: hookBody('/sealed'),
      headers: { 'idempotency-key': 'sealed-webhook-0001' },
    });
  const rotate = (on: FastifyInstance) =>
    api(on, 'POST', `/v1/webhooks/${hook.id}/rotate-secret`, {
      key: tenant.secret.key,
      headers: { 'idempotency-key': 'sealed-rotation-0001' },
    });

  it('stores no plaintext secret in any column of the subscriptions or idempotency tables, nor in the logs', async () => {
    app = await appWith(KEY_1);
    tenant = await createTenant(app, { secret: FAST });
    keyCreated = await createKey(app);
    apiKey = expectStatus(keyCreated, 201).data.key;
    hookCreated = await createHook(app);
    hook = expectStatus(hookCreated, 201).data;
    expect(hook.secret).toMatch(/^whsec_/);
    rotated = await rotate(app);
    newSecret = expectStatus(rotated, 200).data.secret;
    expect(newSecret).not.toBe(hook.secret);

    const stored = await storedText(tenant.org.id);
    expect(stored).toContain(`enc:v1:${keyIdOf(KEY_1)}:`);
    for (const secret of [apiKey, hook.secret, newSecret]) {
      expectAbsent(stored, secret);
      expectAbsent(logs, secret);
    }
    expectAbsent(logs, KEY_1.toString('base64'));
  });

  it('refuses a plaintext write at the database (migration 0010)', async () => {
    await expect(
      db.systemTx((tx) =>
        tx.execute(sql`UPDATE webhook_subscriptions SET secret = 'whsec_plain' WHERE id = ${hook.id}`),
      ),
    ).rejects.toMatchObject({ cause: { code: '23514' } });
  });

  it('replays each answer byte for byte within 24 h, secret included', async () => {
    sameBytes(await createKey(app), keyCreated);
    sameBytes(await createHook(app), hookCreated);
    sameBytes(await rotate(app), rotated);
  });

  it('signs deliveries with the plaintext secrets: the new one and, during the overlap, the old one', async () => {
    const eventId = await emit(db, tenant.org.id, 'contact.created');
    const delivery = await deliverWith(new SecretBox(KEY_1), app, tenant, hook.id, eventId);
    expect(delivery.status, JSON.stringify(delivery)).toBe('SUCCEEDED');
    expectSignedWith('/sealed', eventId, [newSecret, hook.secret]);
  });

  it('rotates SECRETS_KEY: the previous key keeps replays and deliveries working, and the start step seals everything again under the new key', async () => {
    const rotatedApp = await appWith(KEY_2, [KEY_1]);
    sameBytes(await createKey(rotatedApp), keyCreated);
    sameBytes(await createHook(rotatedApp), hookCreated);
    const both = new SecretBox(KEY_2, [KEY_1]);
    const before = await emit(db, tenant.org.id, 'contact.updated');
    expect((await deliverWith(both, rotatedApp, tenant, hook.id, before)).status).toBe('SUCCEEDED');
    expectSignedWith('/sealed', before, [newSecret]);

    await runStartSteps(db, both, quiet);
    const stored = await storedText(tenant.org.id);
    expect(stored).not.toContain(`enc:v1:${keyIdOf(KEY_1)}:`);
    expect(stored).toContain(`enc:v1:${keyIdOf(KEY_2)}:`);
    for (const secret of [apiKey, hook.secret, newSecret]) expectAbsent(stored, secret);

    // The old key can go now: the new one alone replays and delivers.
    const newOnly = await appWith(KEY_2);
    sameBytes(await createKey(newOnly), keyCreated);
    sameBytes(await rotate(newOnly), rotated);
    const after = await emit(db, tenant.org.id, 'contact.updated');
    expect((await deliverWith(new SecretBox(KEY_2), newOnly, tenant, hook.id, after)).status).toBe(
      'SUCCEEDED',
    );
    expectSignedWith('/sealed', after, [newSecret]);
  });

  it('fails clearly with a key that sealed nothing here: 500 on replay, a refused start, deliveries held back', async () => {
    const wrong = await appWith(OTHER_KEY);
    const error = expectError(await createHook(wrong), 500, 'INTERNAL_ERROR');
    expect(error.message).not.toContain('whsec_');
    const cause = `sealed under key ${keyIdOf(KEY_2)}, which is neither SECRETS_KEY \\(${keyIdOf(OTHER_KEY)}\\)`;
    expect(logs).toMatch(new RegExp(cause));

    await expect(runStartSteps(db, new SecretBox(OTHER_KEY), quiet)).rejects.toThrow(
      new RegExp(`sealed under key\\(s\\) ${keyIdOf(KEY_2)} \\(\\d+ secret\\(s\\)\\).*SECRETS_KEY_PREVIOUS`),
    );

    const eventId = await emit(db, tenant.org.id, 'contact.created');
    const held = await deliverWith(new SecretBox(OTHER_KEY), wrong, tenant, hook.id, eventId);
    expect(held.status).toBe('FAILED');
    expect(held.attempts.every((attempt) => /cannot open the signing secret/.test(attempt.error ?? ''))).toBe(
      true,
    );
    expect(receiver.at('/sealed').some((received) => received.headers['webhook-id'] === eventId)).toBe(false);
    // The operator's mistake, not the receiver's: the subscription stays enabled.
    expect(
      expectStatus(await api(wrong, 'GET', `/v1/webhooks/${hook.id}`, { key: tenant.secret.key }), 200).data
        .enabled,
    ).toBe(true);

    // With the right key back, the held delivery goes out when retried.
    expectStatus(
      await api(wrong, 'POST', `/v1/webhooks/deliveries/${held.id}/retry`, {
        key: tenant.secret.key,
      }),
      202,
    );
    expect((await deliverWith(new SecretBox(KEY_2), wrong, tenant, hook.id, eventId)).status).toBe(
      'SUCCEEDED',
    );
    expectSignedWith('/sealed', eventId, [newSecret]);
  });

  it('keeps the rows of an earlier version working, and seals them at start', async () => {
    const legacyApp = await appWith(KEY_2);
    const created = await api(legacyApp, 'POST', '/v1/webhooks', {
      key: tenant.secret.key,
      body: hookBody('/legacy'),
      headers: { 'idempotency-key': 'legacy-webhook-0001' },
    });
    const legacy = expectStatus(created, 201).data as { id: string; secret: string };
    await asEarlierVersion(
      sql`UPDATE webhook_subscriptions SET secret = ${legacy.secret} WHERE id = ${legacy.id}`,
      sql`UPDATE idempotency_keys SET response_body = ${created.body}
          WHERE organization_id = ${tenant.org.id} AND key = 'legacy-webhook-0001'`,
    );
    expect(await storedText(tenant.org.id)).toContain(legacy.secret);

    // Before the start step: plaintext rows are read as they are.
    const replay = () =>
      api(legacyApp, 'POST', '/v1/webhooks', {
        key: tenant.secret.key,
        body: hookBody('/legacy'),
        headers: { 'idempotency-key': 'legacy-webhook-0001' },
      });
    sameBytes(await replay(), created);
    const first = await emit(db, tenant.org.id, 'contact.created');
    expect((await deliverWith(new SecretBox(KEY_2), legacyApp, tenant, legacy.id, first)).status).toBe(
      'SUCCEEDED',
    );
    expectSignedWith('/legacy', first, [legacy.secret]);

    await runStartSteps(db, new SecretBox(KEY_2), quiet);
    expectAbsent(await storedText(tenant.org.id), legacy.secret);
    sameBytes(await replay(), created);
    const second = await emit(db, tenant.org.id, 'contact.created');
    expect((await deliverWith(new SecretBox(KEY_2), legacyApp, tenant, legacy.id, second)).status).toBe(
      'SUCCEEDED',
    );
    expectSignedWith('/legacy', second, [legacy.secret]);
  });
});
