/**
 * verifyWebhook against the service's real deliveries: a subscription made with the client points
 * at a local node:http receiver, the delivery worker sends real events, and what arrives verifies;
 * a tampered, stale, unsigned or wrongly keyed delivery does not.
 */
import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  verifyWebhook,
  WebhookVerificationError,
  type Client,
  type WebhookEvent,
} from '../../clients/typescript/src/index.ts';
import type { Database } from '../../src/db/database.ts';
import type { RunningJobs } from '../../src/platform/jobs/scheduler.ts';
import { createTenant, type Tenant } from '../helpers/factories.ts';
import { buildTestApp, testDatabase } from '../helpers/test-app.ts';
import { Receiver, type Received } from '../features/webhooks/receiver.ts';
import { eventually, startWorker } from '../features/webhooks/support.ts';
import { clientFor, listen } from './support.ts';

let app: FastifyInstance;
let db: Database;
let worker: RunningJobs;
let receiver: Receiver;
let tenant: Tenant;
let secret: Client;
let publishable: Client;
let hook: { id: string; secret: string };

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  db = await testDatabase();
  // 3 s: a first answer that is late on a machine busy with the whole suite is not retried.
  worker = startWorker(db);
  receiver = await new Receiver().start();
  const baseUrl = await listen(app);
  tenant = await createTenant(app, {
    secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 },
  });
  secret = clientFor(baseUrl, tenant.secret.key);
  publishable = clientFor(baseUrl, tenant.publishable.key);
  const created = await secret.webhooks.create({
    url: receiver.url('/hook'),
    eventTypes: ['contact.*', 'lead.submitted'],
    description: 'client tests',
  });
  hook = { id: created.data.id, secret: created.data.secret };
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await app.close();
});

/**
 * Runs `trigger` and waits for the deliveries of `count` events /hook had not received before it,
 * one per event: deliveries are at least once, so a retried attempt of an earlier event (its first
 * answer was late on a busy machine) is neither new nor counted twice.
 */
async function deliveriesAfter(trigger: () => Promise<unknown>, count = 1): Promise<Received[]> {
  const eventIdOf = (delivery: Received) => String(delivery.headers['webhook-id']);
  const seen = new Set(receiver.at('/hook').map(eventIdOf));
  await trigger();
  const fresh = () => {
    const first = new Map<string, Received>();
    for (const delivery of receiver.at('/hook')) {
      if (!seen.has(eventIdOf(delivery)) && !first.has(eventIdOf(delivery)))
        first.set(eventIdOf(delivery), delivery);
    }
    return [...first.values()];
  };
  return eventually(async () => {
    expect(fresh().length).toBeGreaterThanOrEqual(count);
    return fresh().slice(0, count);
  }, 15_000);
}

const signatureOf = (delivery: Received) => delivery.headers['x-service-signature'];

function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  return promise.then(
    () => {
      throw new Error('verifyWebhook accepted it');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(WebhookVerificationError);
      return error as WebhookVerificationError;
    },
  );
}

/** Signs `body` as the service does, for the cases the service never sends. */
function sign(body: string, key: string, timestamp: number): string {
  return `t=${timestamp},v1=${createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex')}`;
}

describe('verifyWebhook accepts', () => {
  it('a real webhook.test delivery and returns the typed event', async () => {
    let eventId = '';
    const [delivery] = (await deliveriesAfter(async () => {
      eventId = (await secret.webhooks.test(hook.id)).data.eventId;
    })) as [Received];
    const event = await verifyWebhook(delivery.body, signatureOf(delivery), hook.secret);
    expect(event.type).toBe('webhook.test');
    expect(event.id).toBe(delivery.headers['webhook-id']);
    expect(event.id).toBe(eventId);
    expect(event.organizationId).toBe(tenant.org.id);
    expect(event.livemode).toBe(true);
    // The raw bytes verify the same as the text.
    expect(await verifyWebhook(Buffer.from(delivery.body), signatureOf(delivery), hook.secret)).toEqual(
      event,
    );
  });

  it('the deliveries of a lead captured with the publishable key: contact.created, then lead.submitted', async () => {
    const deliveries = await deliveriesAfter(
      () =>
        publishable.leads.create({
          firstName: 'Lucía',
          phone: '+34 612 345 678',
          email: 'lucia@example.com',
        }),
      2,
    );
    const events: WebhookEvent[] = [];
    for (const delivery of deliveries) {
      events.push(await verifyWebhook(delivery.body, signatureOf(delivery), hook.secret));
    }
    expect(events.map((event) => event.type).sort()).toEqual(['contact.created', 'lead.submitted']);
    for (const event of events) {
      // `type` narrows the event to its own data.
      if (event.type === 'contact.created') expect(event.data.contact.fullName).toBe('Lucía');
      else if (event.type === 'lead.submitted') expect(event.data).toEqual({ success: true });
      else throw new Error(`unexpected ${event.type}`);
    }
  });

  it('during a rotation: two v1 values, either secret verifies; a list of secrets too', async () => {
    const old = hook.secret;
    const rotated = await secret.webhooks.rotateSecret(hook.id);
    hook.secret = rotated.data.secret;
    const [delivery] = (await deliveriesAfter(() => secret.webhooks.test(hook.id))) as [Received];
    expect(String(signatureOf(delivery)).match(/v1=/g)).toHaveLength(2);
    const withNew = await verifyWebhook(delivery.body, signatureOf(delivery), hook.secret);
    const withOld = await verifyWebhook(delivery.body, signatureOf(delivery), old);
    expect(withOld).toEqual(withNew);
    const elsewhere = 'whsec_c29tZW9uZSBlbHNlJ3Mgc2VjcmV0IGtleSBoZXJlIQ==';
    expect(await verifyWebhook(delivery.body, signatureOf(delivery), [elsewhere, hook.secret])).toEqual(
      withNew,
    );
    await expect(
      refusal(verifyWebhook(delivery.body, signatureOf(delivery), elsewhere)),
    ).resolves.toMatchObject({
      reason: 'BAD_SIGNATURE',
    });
  });

  it('the delivery log through the client, paged with a path parameter', async () => {
    const ids: string[] = [];
    for await (const delivery of secret.webhooks.deliveries(hook.id, { pageSize: 1 })) ids.push(delivery.id);
    expect(ids.length).toBeGreaterThanOrEqual(4);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('verifyWebhook refuses', () => {
  let delivery: Received;
  beforeAll(async () => {
    [delivery] = (await deliveriesAfter(() => secret.webhooks.test(hook.id))) as [Received];
  });

  it('a tampered body or a wrong secret: BAD_SIGNATURE', async () => {
    const tampered = delivery.body.replace('"livemode":true', '"livemode":false');
    expect(tampered).not.toBe(delivery.body);
    const error = await refusal(verifyWebhook(tampered, signatureOf(delivery), hook.secret));
    expect(error.reason).toBe('BAD_SIGNATURE');
    expect(error.message).toMatch(/raw request body/);
    // Parsed and re-serialised JSON is not the body that was signed.
    const reserialised = JSON.stringify(JSON.parse(delivery.body), null, 2);
    await expect(
      refusal(verifyWebhook(reserialised, signatureOf(delivery), hook.secret)),
    ).resolves.toMatchObject({
      reason: 'BAD_SIGNATURE',
    });
    await expect(
      refusal(verifyWebhook(delivery.body, signatureOf(delivery), `${hook.secret}x`)),
    ).resolves.toMatchObject({ reason: 'BAD_SIGNATURE' });
  });

  it('a delivery older than the tolerance: TIMESTAMP_OUT_OF_TOLERANCE', async () => {
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const error = await refusal(
      verifyWebhook(delivery.body, signatureOf(delivery), hook.secret, { toleranceSeconds: 1 }),
    );
    expect(error.reason).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    expect(error.message).toMatch(/signed \d+ s ago, more than the 1 s tolerance/);
    // Signed in the future beyond the default 5 minutes.
    const future = Math.floor(Date.now() / 1000) + 600;
    const ahead = await refusal(
      verifyWebhook(delivery.body, sign(delivery.body, hook.secret, future), hook.secret),
    );
    expect(ahead.reason).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    expect(ahead.message).toMatch(/in the future/);
  });

  it('a missing or malformed header: MALFORMED_HEADER', async () => {
    const header = String(signatureOf(delivery));
    const v1 = header.slice(header.indexOf('v1='));
    for (const [given, message] of [
      [undefined, /missing/],
      ['', /missing/],
      [v1, /no t=/],
      [`t=soon,${v1}`, /no t=/],
      [header.replace(/,v1=.*/, ''), /no v1=/],
      [header.replaceAll('v1=', 'v0='), /no v1=/],
    ] as const) {
      const error = await refusal(verifyWebhook(delivery.body, given, hook.secret));
      expect(error.reason, String(given)).toBe('MALFORMED_HEADER');
      expect(error.message, String(given)).toMatch(message);
    }
    // A v1 value that is not 64 hex characters never matches.
    const short = header.replaceAll(/v1=[0-9a-f]+/g, 'v1=abc');
    await expect(refusal(verifyWebhook(delivery.body, short, hook.secret))).resolves.toMatchObject({
      reason: 'BAD_SIGNATURE',
    });
  });

  it('a correctly signed body that is not an event: MALFORMED_BODY', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const body of ['not json', '[]', '{"id":"evt_1"}']) {
      const error = await refusal(verifyWebhook(body, sign(body, hook.secret, now), hook.secret));
      expect(error.reason, body).toBe('MALFORMED_BODY');
    }
  });

  it('no secret at all: a TypeError, not a verification result', async () => {
    await expect(verifyWebhook(delivery.body, signatureOf(delivery), '')).rejects.toThrow(TypeError);
    await expect(verifyWebhook(delivery.body, signatureOf(delivery), [])).rejects.toThrow(TypeError);
  });
});
