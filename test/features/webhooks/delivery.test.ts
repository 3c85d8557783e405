import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import type { RunningJobs } from '../../../src/platform/jobs/scheduler.ts';
import { createApiKey, createTenant, FAST } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import type { Tenant } from '../../helpers/factories.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { Receiver, type Received } from './receiver.ts';
import { deliveriesOf, emit, eventually, startWorker, subscribe } from './support.ts';

const stripe = new Stripe('sk_test_unused');

let app: FastifyInstance;
let db: Database;
let receiver: Receiver;
let worker: RunningJobs;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  db = await testDatabase();
  receiver = await new Receiver().start();
  // 4 s: long past any event-loop stall seen in a full run, short enough for the test of a timeout.
  worker = startWorker(db, { webhookRetryDelaysMs: [0, 300, 300, 300, 300], webhookTimeoutMs: 4_000 });
  tenant = await createTenant(app, { secret: FAST });
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await app.close();
});

/** Verifies one request as a receiver would, with both independent libraries. */
function verify(request: Received, secret: string) {
  const event = stripe.webhooks.constructEvent(
    request.body,
    request.headers['x-service-signature'] as string,
    secret,
  );
  new Webhook(secret).verify(request.body, {
    'webhook-id': request.headers['webhook-id'] as string,
    'webhook-timestamp': request.headers['webhook-timestamp'] as string,
    'webhook-signature': request.headers['webhook-signature'] as string,
  });
  return event as unknown as Record<string, unknown>;
}

describe('delivering an event', () => {
  it('POSTs the signed SPEC envelope to every matching subscription, verifiable with stripe and standardwebhooks', async () => {
    const contacts = await subscribe(app, tenant.secret.key, receiver.url('/contacts'), ['contact.*']);
    const exact = await subscribe(app, tenant.secret.key, receiver.url('/exact'), ['contact.created']);
    await subscribe(app, tenant.secret.key, receiver.url('/deals'), ['deal.*']);
    const created = await admin(app, 'POST', `/admin/v1/organizations/${tenant.org.id}/contacts`, {
      firstName: 'Marta',
      phone: '+34600123456',
    });
    const contact = expectStatus(created, 201).data;
    await receiver.waitFor(1, '/contacts');
    await receiver.waitFor(1, '/exact');

    const [request] = receiver.at('/contacts') as [Received];
    const envelope = verify(request, contacts.secret);
    expect(Object.keys(envelope)).toEqual([
      'event',
      'id',
      'type',
      'timestamp',
      'organizationId',
      'livemode',
      'actor',
      'data',
      'sequence',
    ]);
    // The same envelope, with the same place in the log, as GET /v1/event-log shows.
    const logged = expectStatus(
      await api(app, 'GET', `/v1/event-log/${envelope.id as string}`, { key: tenant.secret.key }),
      200,
    ).data;
    expect(envelope).toEqual(logged);
    expect(envelope.sequence).toBeGreaterThan(0);
    expect(envelope).toMatchObject({
      event: 'contact.created',
      type: 'contact.created',
      organizationId: tenant.org.id,
      livemode: true,
      actor: { kind: 'SYSTEM', userId: null },
    });
    expect((envelope.data as { contact: { id: string } }).contact.id).toBe(contact.id);
    expect(request.headers['webhook-id']).toBe(envelope.id);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^agency-crm-webhooks\//);
    expect(request.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    // Each subscription is signed with its own secret; the event id is the same.
    const [exactRequest] = receiver.at('/exact') as [Received];
    expect(verify(exactRequest, exact.secret).id).toBe(envelope.id);
    expect(() => verify(exactRequest, contacts.secret)).toThrow();
    // A deal.* subscription got nothing.
    expect(receiver.at('/deals')).toHaveLength(0);

    await eventually(async () => {
      const [delivery] = await deliveriesOf(app, tenant.secret.key, contacts.id);
      expect(delivery).toMatchObject({
        status: 'SUCCEEDED',
        eventId: envelope.id,
        eventType: 'contact.created',
      });
      // One attempt, unless the machine was so busy that the first one timed out (then it was retried).
      expect(delivery?.attemptCount).toBe(delivery?.attempts.length);
      expect(delivery?.attempts.at(-1)).toMatchObject({ statusCode: 200, error: null, responseBody: 'ok' });
    });
  });

  it('retries 500, 500 then 200: three attempts, the same id, each freshly signed', async () => {
    const hook = await subscribe(app, tenant.secret.key, receiver.url('/flaky'), ['deal.won']);
    receiver.script('/flaky', { status: 500, body: 'boom' }, { status: 500 }, { status: 200 });
    const eventId = await emit(db, tenant.org.id, 'deal.won');
    await receiver.waitFor(3, '/flaky');
    const attempts = receiver.at('/flaky');
    for (const request of attempts) {
      expect(verify(request, hook.secret).id).toBe(eventId);
      expect(request.headers['webhook-id']).toBe(eventId);
    }
    // The configured delays (300 ms) separate the attempts.
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(250);
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(250);
    await eventually(async () => {
      const [delivery] = await deliveriesOf(app, tenant.secret.key, hook.id);
      expect(delivery?.status).toBe('SUCCEEDED');
      expect(delivery?.attempts.map((a) => a.statusCode)).toEqual([500, 500, 200]);
      expect(delivery?.attempts[0]?.responseBody).toBe('boom');
    });
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(receiver.at('/flaky')).toHaveLength(3);
  });

  it(
    'retries 429, a dropped connection and a timeout, and stops after the last configured attempt',
    { timeout: 60_000 },
    async () => {
      const hook = await subscribe(app, tenant.secret.key, receiver.url('/mixed'), ['deal.won']);
      receiver.script('/mixed', { status: 429 }, 'reset', 'hang', { status: 503 }, { status: 502 });
      await emit(db, tenant.org.id, 'deal.won');
      await receiver.waitFor(5, '/mixed');
      await eventually(async () => {
        const [delivery] = await deliveriesOf(app, tenant.secret.key, hook.id);
        expect(delivery?.status).toBe('FAILED');
        expect(delivery?.attempts.map((a) => a.statusCode)).toEqual([429, null, null, 503, 502]);
        expect(delivery?.attempts[1]?.error).toMatch(/ECONNRESET|socket hang up/);
        expect(delivery?.attempts[2]?.error).toMatch(/timeout after 4000 ms/);
        expect(delivery?.attempts[2]?.durationMs).toBeGreaterThanOrEqual(3_900);
      }, 20_000);
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(receiver.at('/mixed')).toHaveLength(5);
    },
  );

  it('does not retry a 4xx, and does not follow a redirect (a 3xx is a failure)', async () => {
    const rejecting = await subscribe(app, tenant.secret.key, receiver.url('/bad-request'), ['deal.won']);
    const moving = await subscribe(app, tenant.secret.key, receiver.url('/moved'), ['deal.won']);
    receiver.script('/bad-request', { status: 400, body: 'no thanks' });
    receiver.script('/moved', { status: 302, headers: { location: receiver.url('/target') } });
    await emit(db, tenant.org.id, 'deal.won');
    await eventually(async () => {
      const [rejected] = await deliveriesOf(app, tenant.secret.key, rejecting.id);
      expect(rejected).toMatchObject({ status: 'FAILED', attemptCount: 1, lastError: 'HTTP 400' });
      const [moved] = await deliveriesOf(app, tenant.secret.key, moving.id);
      expect(moved).toMatchObject({ status: 'FAILED', attemptCount: 1 });
      expect(moved?.attempts[0]?.statusCode).toBe(302);
    });
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(receiver.at('/bad-request')).toHaveLength(1);
    expect(receiver.at('/moved')).toHaveLength(1);
    expect(receiver.at('/target')).toHaveLength(0);
  });

  it('fans a test twin event out to the twin subscriptions only, with livemode false', async () => {
    const testKey = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      mode: 'test',
      scopes: ['webhooks:write', 'contacts:write'],
      accessLevel: 3,
      writeLimitPerMinute: 1000,
    });
    const twinHook = await subscribe(app, testKey.key, receiver.url('/twin'), ['lead.submitted']);
    await subscribe(app, tenant.secret.key, receiver.url('/live-leads'), ['lead.submitted']);
    const twinId = tenant.org.testOrganizationId as string;
    await emit(db, twinId, 'lead.submitted');
    await receiver.waitFor(1, '/twin');
    const envelope = verify(receiver.at('/twin')[0]!, twinHook.secret);
    expect(envelope).toMatchObject({ livemode: false, organizationId: twinId });
    expect(receiver.at('/live-leads')).toHaveLength(0);
  });
});

describe('secrets, tests and disabling', () => {
  it('signs with both secrets for 24 hours after a rotation', async () => {
    const hook = await subscribe(app, tenant.secret.key, receiver.url('/rotated'), ['visit.requested']);
    const rotated = expectStatus(
      await api(app, 'POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key: tenant.secret.key }),
      200,
    ).data;
    await emit(db, tenant.org.id, 'visit.requested');
    await receiver.waitFor(1, '/rotated');
    const request = receiver.at('/rotated')[0]!;
    expect(request.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    verify(request, rotated.secret);
    verify(request, hook.secret);
    // Once the overlap has passed, only the new secret signs.
    await db.systemTx((tx) =>
      tx.execute(
        sql`UPDATE webhook_subscriptions SET previous_secret_expires_at = now() - interval '1 second' WHERE id = ${hook.id}`,
      ),
    );
    await emit(db, tenant.org.id, 'visit.requested');
    await receiver.waitFor(2, '/rotated');
    const later = receiver.at('/rotated')[1]!;
    verify(later, rotated.secret);
    expect(() => verify(later, hook.secret)).toThrow();
  });

  it('sends webhook.test to that subscription only', async () => {
    const other = await createTenant(app, { secret: FAST });
    const target = await subscribe(app, other.secret.key, receiver.url('/test-target'), ['deal.won']);
    await subscribe(app, other.secret.key, receiver.url('/test-bystander'), ['*']);
    const answer = expectStatus(
      await api(app, 'POST', `/v1/webhooks/${target.id}/test`, { key: other.secret.key }),
      202,
    ).data;
    await receiver.waitFor(1, '/test-target');
    const envelope = verify(receiver.at('/test-target')[0]!, target.secret);
    expect(envelope).toMatchObject({
      id: answer.eventId,
      type: 'webhook.test',
      data: { subscription: { id: target.id } },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.at('/test-bystander')).toHaveLength(0);
  });

  it('disables a subscription at once on 410 Gone and tells the others with webhook.disabled', async () => {
    const other = await createTenant(app, { secret: FAST });
    const gone = await subscribe(app, other.secret.key, receiver.url('/gone'), ['deal.won']);
    const watcher = await subscribe(app, other.secret.key, receiver.url('/watcher'), ['webhook.*']);
    receiver.script('/gone', { status: 410 });
    await emit(db, other.org.id, 'deal.won');
    await receiver.waitFor(1, '/watcher');
    const notice = verify(receiver.at('/watcher')[0]!, watcher.secret);
    expect(notice).toMatchObject({
      type: 'webhook.disabled',
      data: { reason: 'GONE', subscription: { id: gone.id } },
    });
    const state = expectStatus(
      await api(app, 'GET', `/v1/webhooks/${gone.id}`, { key: other.secret.key }),
      200,
    ).data;
    expect(state).toMatchObject({ enabled: false, disabledReason: 'GONE' });
    // Disabled: new events no longer create deliveries for it.
    await emit(db, other.org.id, 'deal.won');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.at('/gone')).toHaveLength(1);
    expect(await deliveriesOf(app, other.secret.key, gone.id)).toHaveLength(1);
    expectError(
      await api(app, 'POST', `/v1/webhooks/${gone.id}/test`, { key: other.secret.key }),
      409,
      'DUPLICATE',
    );
  });

  it('disables a subscription failing for longer than the limit; a success resets the clock', async () => {
    const other = await createTenant(app, { secret: FAST });
    const failing = await subscribe(app, other.secret.key, receiver.url('/failing'), ['deal.lost']);
    receiver.script('/failing', { status: 400 });
    await emit(db, other.org.id, 'deal.lost');
    await eventually(async () => {
      const row = await db.systemTx((tx) =>
        tx.execute(sql`SELECT failing_since FROM webhook_subscriptions WHERE id = ${failing.id}`),
      );
      expect(
        (row as unknown as { rows: { failing_since: unknown }[] }).rows[0]?.failing_since,
      ).not.toBeNull();
    });
    const state = expectStatus(
      await api(app, 'GET', `/v1/webhooks/${failing.id}`, { key: other.secret.key }),
      200,
    ).data;
    expect(state.enabled).toBe(true);
    // Three days and a bit later (the clock moved by SQL), the next failure disables it.
    await db.systemTx((tx) =>
      tx.execute(
        sql`UPDATE webhook_subscriptions SET failing_since = now() - interval '73 hours' WHERE id = ${failing.id}`,
      ),
    );
    await emit(db, other.org.id, 'deal.lost');
    await eventually(async () => {
      const after = expectStatus(
        await api(app, 'GET', `/v1/webhooks/${failing.id}`, { key: other.secret.key }),
        200,
      ).data;
      expect(after).toMatchObject({ enabled: false, disabledReason: 'FAILING' });
    });
    // Re-enabled by its owner, a success clears the failing run.
    expectStatus(
      await api(app, 'PATCH', `/v1/webhooks/${failing.id}`, {
        key: other.secret.key,
        body: { enabled: true },
      }),
      200,
    );
    receiver.script('/failing', { status: 200 });
    await emit(db, other.org.id, 'deal.lost');
    await eventually(async () => {
      const result = await db.systemTx((tx) =>
        tx.execute(sql`SELECT failing_since, enabled FROM webhook_subscriptions WHERE id = ${failing.id}`),
      );
      expect((result as unknown as { rows: unknown[] }).rows[0]).toEqual({
        failing_since: null,
        enabled: true,
      });
    });
  });
});

describe('delivery log and replay', () => {
  it('filters the log by status, type and since, and pages it', async () => {
    const other = await createTenant(app, { secret: FAST });
    const hook = await subscribe(app, other.secret.key, receiver.url('/log'), ['*']);
    receiver.script('/log', { status: 200 });
    await emit(db, other.org.id, 'deal.won');
    await emit(db, other.org.id, 'contact.created');
    await emit(db, other.org.id, 'contact.created');
    await eventually(async () => {
      expect((await deliveriesOf(app, other.secret.key, hook.id, '?status=SUCCEEDED')).length).toBe(3);
    });
    expect(await deliveriesOf(app, other.secret.key, hook.id, '?type=contact.created')).toHaveLength(2);
    expect(await deliveriesOf(app, other.secret.key, hook.id, '?status=FAILED')).toHaveLength(0);
    const future = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
    expect(await deliveriesOf(app, other.secret.key, hook.id, `?since=${future}`)).toHaveLength(0);
    const page = expectStatus(
      await api(app, 'GET', `/v1/webhooks/${hook.id}/deliveries?pageSize=2&page=2`, {
        key: other.secret.key,
      }),
      200,
    );
    expect(page.meta).toEqual({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(page.data).toHaveLength(1);
    expectError(
      await api(app, 'GET', `/v1/webhooks/${hook.id}/deliveries?status=LOST`, { key: other.secret.key }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('replays one delivery, and recovers every failed one since an instant, with the same event id', async () => {
    const other = await createTenant(app, { secret: FAST });
    const hook = await subscribe(app, other.secret.key, receiver.url('/replay'), ['deal.won']);
    receiver.script('/replay', { status: 404 });
    const since = new Date().toISOString();
    const first = await emit(db, other.org.id, 'deal.won');
    const second = await emit(db, other.org.id, 'deal.won');
    await eventually(async () => {
      expect((await deliveriesOf(app, other.secret.key, hook.id, '?status=FAILED')).length).toBe(2);
    });
    receiver.script('/replay', { status: 200 });
    const failed = await deliveriesOf(app, other.secret.key, hook.id);
    const target = failed.find((d) => d.eventId === first)!;
    const replayed = expectStatus(
      await api(app, 'POST', `/v1/webhooks/deliveries/${target.id}/retry`, { key: other.secret.key }),
      202,
    ).data;
    expect(replayed).toMatchObject({ id: target.id, status: 'PENDING' });
    await receiver.waitFor(3, '/replay');
    expect(verify(receiver.at('/replay')[2]!, hook.secret).id).toBe(first);
    await eventually(async () => {
      const [done] = (await deliveriesOf(app, other.secret.key, hook.id)).filter((d) => d.eventId === first);
      expect(done?.status).toBe('SUCCEEDED');
      expect(done?.attempts.map((a) => [a.attempt, a.statusCode])).toEqual([
        [1, 404],
        [2, 200],
      ]);
    });
    expectError(
      await api(app, 'POST', `/v1/webhooks/deliveries/whd_0000000000000000000000/retry`, {
        key: other.secret.key,
      }),
      404,
      'NOT_FOUND',
    );

    const recovered = expectStatus(
      await api(app, 'POST', `/v1/webhooks/${hook.id}/recover`, { key: other.secret.key, body: { since } }),
      202,
    ).data;
    expect(recovered).toEqual({ requeued: 1, retried: 1, added: 0, hasMore: false });
    await receiver.waitFor(4, '/replay');
    expect(verify(receiver.at('/replay')[3]!, hook.secret).id).toBe(second);
    expectError(
      await api(app, 'POST', `/v1/webhooks/${hook.id}/recover`, {
        key: other.secret.key,
        body: { since: 'yesterday' },
      }),
      400,
      'VALIDATION_ERROR',
    );
  });
});
