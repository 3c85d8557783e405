/**
 * The console's webhooks and limits (issue 22, items 3 and 6): endpoints changed from the console are
 * events with the actor CONSOLE; the signing secret on demand; every attempt's request and answer;
 * each endpoint's last 24 hours; the live usage of the rate-limit policies. Against a real local
 * receiver and delivery worker.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import type { RunningJobs } from '../../../src/platform/jobs/scheduler.ts';
import { createTenant, type Tenant } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { eventually, startWorker } from '../webhooks/support.ts';
import { consoleClient } from './support.ts';

let app: FastifyInstance;
let db: Database;
let receiver: Receiver;
let worker: RunningJobs;
let tenant: Tenant;
let other: Tenant;
let client: ReturnType<typeof consoleClient>;

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  db = await testDatabase();
  receiver = await new Receiver().start();
  worker = startWorker(db, { webhookRetryDelaysMs: [0, 200, 200] });
  tenant = await createTenant(app);
  other = await createTenant(app);
  client = consoleClient(app);
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await app.close();
});

type Call = ReturnType<ReturnType<typeof consoleClient>['as']>;

async function addEndpoint(call: Call, path: string, eventTypes = ['*']) {
  return expectStatus(
    await call('POST', '/console/api/webhooks', { url: receiver.url(path), eventTypes }),
    201,
  ).data as { id: string; secret: string };
}

async function eventsOf(call: Call, type: string) {
  return expectStatus(await call('GET', `/console/api/events?type=${type}`), 200).data as {
    type: string;
    actor: { kind: string; userId: string | null };
    data: Record<string, unknown>;
  }[];
}

describe('console webhook endpoints', () => {
  it('record every change as an event with the actor CONSOLE and the session id', async () => {
    const session = await client.signIn(tenant.org.id);
    const call = client.as(session);
    const hook = await addEndpoint(call, '/changes', ['deal.won']);
    const edited = expectStatus(
      await call('PATCH', `/console/api/webhooks/${hook.id}`, {
        url: receiver.url('/changes-2'),
        eventTypes: ['deal.*', 'contact.created'],
      }),
      200,
    ).data;
    expect(edited).toMatchObject({
      url: receiver.url('/changes-2'),
      eventTypes: ['deal.*', 'contact.created'],
    });
    const rotated = expectStatus(
      await call('POST', `/console/api/webhooks/${hook.id}/rotate-secret`, { overlapHours: 2 }),
      200,
    ).data;
    const hours = (Date.parse(rotated.previousSecretExpiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(1.9);
    expect(hours).toBeLessThanOrEqual(2);
    expectStatus(await call('DELETE', `/console/api/webhooks/${hook.id}`), 200);

    for (const type of ['webhook.created', 'webhook.updated', 'webhook.secret_rotated', 'webhook.deleted']) {
      const [event] = (await eventsOf(call, type)).filter(
        (item) => (item.data.subscription as { id: string }).id === hook.id,
      );
      expect(event, type).toBeDefined();
      expect(event?.actor.kind).toBe('CONSOLE');
      expect(event?.actor.userId).toMatch(/^cs_/);
    }
    const [updated] = await eventsOf(call, 'webhook.updated');
    expect(updated?.data.changes).toEqual(['eventTypes', 'url']);
    // Never the secret, in any of them.
    const all = JSON.stringify(await eventsOf(call, 'webhook.secret_rotated'));
    expect(all).not.toContain(rotated.secret);
    expect(all).not.toContain(hook.secret);
  });

  it('reveal the signing secret on demand, with the CSRF token, for their own endpoints only', async () => {
    const session = await client.signIn(tenant.org.id);
    const call = client.as(session);
    const hook = await addEndpoint(call, '/reveal');
    const revealed = expectStatus(
      await call('POST', `/console/api/webhooks/${hook.id}/reveal-secret`),
      200,
    ).data;
    expect(revealed).toEqual({ id: hook.id, secret: hook.secret, previousSecretExpiresAt: null });

    const noToken = await client.consoleCall(
      session.cookie,
      'POST',
      `/console/api/webhooks/${hook.id}/reveal-secret`,
      {
        headers: { origin: 'http://localhost:80' },
      },
    );
    expect(noToken.statusCode).toBe(403);
    expect(noToken.body).not.toContain(hook.secret);

    const theirs = client.as(await client.signIn(other.org.id));
    const foreign = await theirs('POST', `/console/api/webhooks/${hook.id}/reveal-secret`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain(hook.secret);

    // After a rotation: the new secret, and until when the old one still signs.
    const rotated = expectStatus(
      await call('POST', `/console/api/webhooks/${hook.id}/rotate-secret`),
      200,
    ).data;
    const after = expectStatus(
      await call('POST', `/console/api/webhooks/${hook.id}/reveal-secret`),
      200,
    ).data;
    expect(after.secret).toBe(rotated.secret);
    expect(after.secret).not.toBe(hook.secret);
    expect(after.previousSecretExpiresAt).toBe(rotated.previousSecretExpiresAt);
  });
});

describe('console delivery log', () => {
  it("shows each attempt's request headers and body and the answer's status, headers and body", async () => {
    const session = await client.signIn(tenant.org.id);
    const call = client.as(session);
    receiver.script(
      '/attempts',
      { status: 503, body: 'busy', headers: { 'retry-after': '1' } },
      { status: 200, body: 'thanks', headers: { 'x-receiver': 'attempts' } },
    );
    const hook = await addEndpoint(call, '/attempts');
    const sent = expectStatus(await call('POST', `/console/api/webhooks/${hook.id}/test`), 201).data;
    const detail = await eventually(async () => {
      const answer = expectStatus(await call('GET', `/console/api/deliveries/${sent.deliveryId}`), 200).data;
      expect(answer.status).toBe('SUCCEEDED');
      return answer;
    });
    expect(detail.url).toBe(receiver.url('/attempts'));
    expect(detail.attempts).toHaveLength(2);
    const [first, second] = detail.attempts;
    expect(first).toMatchObject({ statusCode: 503, responseBody: 'busy' });
    expect(first.responseHeaders).toMatchObject({ 'retry-after': '1', 'content-type': 'text/plain' });
    expect(second).toMatchObject({ statusCode: 200, responseBody: 'thanks' });
    expect(second.responseHeaders['x-receiver']).toBe('attempts');
    // What was sent is what the receiver got: the signed headers and the exact body.
    const got = receiver.at('/attempts');
    expect(got).toHaveLength(2);
    expect(detail.requestBody).toBe(got[1]?.body);
    for (const [i, attempt] of detail.attempts.entries()) {
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-service-signature']) {
        expect(attempt.requestHeaders[name], name).toBe(got[i]?.headers[name]);
      }
    }

    // Another organization's delivery is 404, in either direction.
    const theirs = client.as(await client.signIn(other.org.id));
    expect((await theirs('GET', `/console/api/deliveries/${sent.deliveryId}`)).statusCode).toBe(404);
    expect((await call('GET', '/console/api/deliveries/whd_unknown')).statusCode).toBe(404);
  });

  it('gives each endpoint its success rate and latency over the last 24 hours', async () => {
    const session = await client.signIn(other.org.id);
    const call = client.as(session);
    receiver.script('/flaky', { status: 500 }, { status: 200 }, { status: 200 }, { status: 200 });
    const idle = await addEndpoint(call, '/idle', ['deal.won']);
    const flaky = await addEndpoint(call, '/flaky');
    for (let i = 0; i < 3; i++) {
      const sent = expectStatus(await call('POST', `/console/api/webhooks/${flaky.id}/test`), 201).data;
      await eventually(async () => {
        const answer = expectStatus(
          await call('GET', `/console/api/deliveries/${sent.deliveryId}`),
          200,
        ).data;
        expect(answer.status).toBe('SUCCEEDED');
      });
    }
    const stats = expectStatus(await call('GET', '/console/api/webhooks/stats'), 200).data as {
      subscriptionId: string;
      attempts: number;
      succeeded: number;
      successRate: number | null;
      p50Ms: number | null;
      p95Ms: number | null;
    }[];
    const ofFlaky = stats.find((item) => item.subscriptionId === flaky.id);
    // The first test event failed once: 3 deliveries, 4 attempts, 3 answered 2xx.
    expect(ofFlaky).toMatchObject({ attempts: 4, succeeded: 3, successRate: 0.75, windowHours: 24 });
    expect(ofFlaky?.p50Ms).toBeGreaterThanOrEqual(0);
    expect(ofFlaky?.p95Ms).toBeGreaterThanOrEqual(ofFlaky?.p50Ms as number);
    expect(stats.find((item) => item.subscriptionId === idle.id)).toMatchObject({
      attempts: 0,
      successRate: null,
      p50Ms: null,
    });
    // Only this organization's endpoints.
    const mine = expectStatus(
      await client.as(await client.signIn(tenant.org.id))('GET', '/console/api/webhooks/stats'),
      200,
    );
    expect(JSON.stringify(mine.data)).not.toContain(flaky.id);
  });

  it('records a resend and a recover as events', async () => {
    const session = await client.signIn(tenant.org.id);
    const call = client.as(session);
    const hook = await addEndpoint(call, '/resend');
    const sent = expectStatus(await call('POST', `/console/api/webhooks/${hook.id}/test`), 201).data;
    await eventually(async () => {
      const answer = expectStatus(await call('GET', `/console/api/deliveries/${sent.deliveryId}`), 200).data;
      expect(answer.status).toBe('SUCCEEDED');
    });
    expectStatus(await call('POST', `/console/api/deliveries/${sent.deliveryId}/retry`), 200);
    const since = new Date(Date.now() - 60_000).toISOString();
    const recovered = expectStatus(
      await call('POST', `/console/api/webhooks/${hook.id}/recover`, { since }),
      200,
    ).data;
    const [retried] = await eventsOf(call, 'webhook.delivery_retried');
    expect(retried).toMatchObject({
      actor: { kind: 'CONSOLE' },
      data: { delivery: { id: sent.deliveryId, eventId: sent.eventId, eventType: 'webhook.test' } },
    });
    const [recover] = await eventsOf(call, 'webhook.recovered');
    expect(recover).toMatchObject({
      actor: { kind: 'CONSOLE' },
      data: { subscription: { id: hook.id }, since, retried: recovered.retried, added: recovered.added },
    });
  });
});

describe('console limits', () => {
  it("show each active key's live usage per policy, and the organization's writes, per mode", async () => {
    const org = await createTenant(app);
    const call = client.as(await client.signIn(org.org.id));
    for (let i = 0; i < 3; i++) expectStatus(await api(app, 'GET', '/v1/me', { key: org.secret.key }), 200);
    expectStatus(
      await api(app, 'POST', '/v1/contacts', {
        key: org.secret.key,
        body: { firstName: 'Lía', email: 'lia@example.com' },
      }),
      201,
    );
    const { data } = expectStatus(await call('GET', '/console/api/limits'), 200);
    const secret = data.keys.find((key: { id: string }) => key.id === org.secret.id);
    const policy = (name: string) => secret.policies.find((p: { name: string }) => p.name === name);
    expect(policy('key')).toMatchObject({ limit: org.secret.rateLimitPerMinute, windowSeconds: 60 });
    expect(policy('key').remaining).toBe(policy('key').limit - 4);
    expect(policy('key').resetSeconds).toBeGreaterThan(0);
    expect(policy('key-writes').remaining).toBe(policy('key-writes').limit - 1);
    expect(data.organizationWrites.name).toBe('organization-writes');
    expect(data.organizationWrites.remaining).toBe(data.organizationWrites.limit - 1);
    // A read-only key has no write policy; a revoked key is not listed.
    const readOnly = data.keys.find((key: { id: string }) => key.id === org.readOnly.id);
    expect(readOnly.policies.map((p: { name: string }) => p.name)).toEqual(['key']);
    // Test mode: the twin's keys only.
    const test = expectStatus(await call('GET', '/console/api/limits?mode=test'), 200).data;
    expect(test.keys.map((key: { id: string }) => key.id)).not.toContain(org.secret.id);
    // Needs the session.
    expect((await client.consoleCall(null, 'GET', '/console/api/limits')).statusCode).toBe(401);
  });
});
