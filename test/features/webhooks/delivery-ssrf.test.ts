import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import type { RunningJobs } from '../../../src/platform/jobs/scheduler.ts';
import { createTenant, FAST } from '../../helpers/factories.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { Receiver } from './receiver.ts';
import { deliveriesOf, emit, eventually, fakeDns, startWorker, subscribe } from './support.ts';

// WEBHOOK_ALLOW_PRIVATE_URLS=false (the default) in both the API and the worker.
const dns = fakeDns({ 'rebind.test': ['93.184.216.34'], 'v6rebind.test': ['2606:4700::1111'] });
let app: FastifyInstance;
let db: Database;
let receiver: Receiver;
let worker: RunningJobs;

beforeAll(async () => {
  app = await buildTestApp({}, { lookup: dns });
  db = await testDatabase();
  receiver = await new Receiver().start();
  worker = startWorker(db, { webhookAllowPrivateUrls: false, lookup: dns });
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await app.close();
});

it('checks the address again at delivery: a name that now resolves to loopback or a private address is refused', async () => {
  const tenant = await createTenant(app, { secret: FAST });
  // Public when the subscriptions are made...
  const v4 = await subscribe(app, tenant.secret.key, `https://rebind.test:${receiver.port}/hook`, [
    'deal.won',
  ]);
  const v6 = await subscribe(app, tenant.secret.key, `https://v6rebind.test:${receiver.port}/hook`, [
    'deal.won',
  ]);
  // ...then the names are rebound to the receiver's loopback address and to an IPv4-mapped one.
  dns.table['rebind.test'] = ['127.0.0.1'];
  dns.table['v6rebind.test'] = ['::ffff:127.0.0.1'];
  await emit(db, tenant.org.id, 'deal.won');
  for (const hook of [v4, v6]) {
    await eventually(async () => {
      const [delivery] = await deliveriesOf(app, tenant.secret.key, hook.id);
      // Refused by the guard, not retried (a blocked address is not a passing network error).
      expect(delivery).toMatchObject({ status: 'FAILED', attemptCount: 1 });
      expect(delivery?.attempts[0]).toMatchObject({ statusCode: null });
      expect(delivery?.attempts[0]?.error).toMatch(/^blocked: .*not allowed.*private IP address/);
    });
  }
  expect(receiver.received).toHaveLength(0);
});
