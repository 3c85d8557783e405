/**
 * Changes to subscriptions are events (issue 22): `webhook.created`, `.updated`, `.deleted`,
 * `.secret_rotated`, `.delivery_retried` and `.recovered`, recorded with the change and sent to the
 * organization's other matching subscriptions; a rotation takes its overlap; the delivery log keeps
 * each attempt's request and answer headers.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import type { RunningJobs } from '../../../src/platform/jobs/scheduler.ts';
import { createTenant, FAST, type Tenant } from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { Receiver } from './receiver.ts';
import { deliveriesOf, eventually, startWorker, subscribe } from './support.ts';

let app: FastifyInstance;
let db: Database;
let receiver: Receiver;
let worker: RunningJobs;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  db = await testDatabase();
  receiver = await new Receiver().start();
  worker = startWorker(db, { webhookRetryDelaysMs: [0, 200, 200] });
  tenant = await createTenant(app, { secret: FAST });
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await app.close();
});

const bodies = (path: string) => receiver.at(path).map((request) => JSON.parse(request.body));

describe('subscription changes', () => {
  it('are events with the actor API, sent to the other subscriptions but never the secret', async () => {
    const key = tenant.secret.key;
    const watcher = await subscribe(app, key, receiver.url('/watcher'), ['webhook.*']);
    const hook = await subscribe(app, key, receiver.url('/subject'), ['deal.won']);
    expectStatus(
      await api(app, 'PATCH', `/v1/webhooks/${hook.id}`, {
        key,
        body: { description: 'renamed', enabled: false },
      }),
      200,
    );
    const rotated = expectStatus(
      await api(app, 'POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key }),
      200,
    ).data;
    expectStatus(await api(app, 'DELETE', `/v1/webhooks/${hook.id}`, { key }), 200);

    await receiver.waitFor(4, '/watcher');
    // Sorted by the organization's sequence: deliveries may arrive in any order.
    const events = bodies('/watcher').sort((a, b) => a.sequence - b.sequence);
    expect(events.map((event) => event.type)).toEqual([
      'webhook.created',
      'webhook.updated',
      'webhook.secret_rotated',
      'webhook.deleted',
    ]);
    for (const event of events) {
      expect(event.actor).toEqual({ kind: 'API', userId: null });
      expect(event.data.subscription).toMatchObject({ id: hook.id, url: receiver.url('/subject') });
    }
    expect(events[1].data.changes).toEqual(['description', 'enabled']);
    expect(events[1].data.subscription).toMatchObject({ description: 'renamed', enabled: false });
    expect(events[2].data.previousSecretExpiresAt).toBe(rotated.previousSecretExpiresAt);
    const text = JSON.stringify(events);
    expect(text).not.toContain(hook.secret);
    expect(text).not.toContain(rotated.secret);
    // A subscription is not sent its own creation: the watcher got no webhook.created about itself.
    expect(events.some((event) => event.data.subscription.id === watcher.id)).toBe(false);
  });

  it('rotate with the overlap asked for: 48 hours, none at all, 24 by default, at most 168', async () => {
    const key = tenant.secret.key;
    const hook = await subscribe(app, key, receiver.url('/rotations'), ['deal.won']);
    const rotate = (body?: Record<string, unknown>) =>
      api(app, 'POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key, ...(body ? { body } : {}) });
    const hoursLeft = (iso: string) => (Date.parse(iso) - Date.now()) / 3_600_000;

    const long = expectStatus(await rotate({ overlapHours: 48 }), 200).data;
    expect(hoursLeft(long.previousSecretExpiresAt)).toBeGreaterThan(47.9);
    expect(hoursLeft(long.previousSecretExpiresAt)).toBeLessThanOrEqual(48);
    const byDefault = expectStatus(await rotate(), 200).data;
    expect(hoursLeft(byDefault.previousSecretExpiresAt)).toBeGreaterThan(23.9);
    const none = expectStatus(await rotate({ overlapHours: 0 }), 200).data;
    expect(none.previousSecretExpiresAt).toBeNull();

    expectError(await rotate({ overlapHours: 169 }), 400, 'VALIDATION_ERROR');
    expectError(await rotate({ overlapHours: -1 }), 400, 'VALIDATION_ERROR');
    expectError(await rotate({ overlapHours: 'soon' }), 400, 'VALIDATION_ERROR');
    expectError(await rotate({ overlap: 2 }), 400, 'VALIDATION_ERROR');

    // With no overlap, a delivery carries one signature: the new secret's.
    expectStatus(
      await api(app, 'PATCH', `/v1/webhooks/${hook.id}`, { key, body: { eventTypes: ['webhook.test'] } }),
      200,
    );
    expectStatus(await api(app, 'POST', `/v1/webhooks/${hook.id}/test`, { key }), 202);
    await receiver.waitFor(1, '/rotations');
    const signature = String(receiver.at('/rotations')[0]?.headers['x-service-signature']);
    expect(signature.match(/v1=/g)).toHaveLength(1);
  });
});

describe('the delivery log', () => {
  it("keeps each attempt's request headers and the answer's headers", async () => {
    const key = tenant.secret.key;
    receiver.script('/headers', { status: 500, headers: { 'x-trace': 'first' } }, { status: 200 });
    const hook = await subscribe(app, key, receiver.url('/headers'), ['webhook.test']);
    const sent = expectStatus(await api(app, 'POST', `/v1/webhooks/${hook.id}/test`, { key }), 202).data;
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(app, key, hook.id);
      expect(list[0]?.status).toBe('SUCCEEDED');
      return list;
    });
    const attempts = delivery?.attempts as unknown as {
      statusCode: number;
      requestHeaders: Record<string, string>;
      responseHeaders: Record<string, string>;
    }[];
    expect(attempts.map((attempt) => attempt.statusCode)).toEqual([500, 200]);
    expect(attempts[0]?.responseHeaders['x-trace']).toBe('first');
    expect(attempts[0]?.requestHeaders).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': sent.eventId,
    });
    expect(attempts[0]?.requestHeaders['webhook-signature']).toMatch(/^v1,/);
    // Each attempt is signed afresh: its own timestamp header, as the receiver saw it.
    const seen = receiver.at('/headers');
    expect(attempts[1]?.requestHeaders['webhook-timestamp']).toBe(seen[1]?.headers['webhook-timestamp']);
  });
});
