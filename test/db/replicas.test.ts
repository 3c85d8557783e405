/**
 * Read replicas (issue 23, item 2), on a real primary and streaming replica made here with initdb and
 * pg_basebackup: reads go to the replica, an organization's reads see its own writes at once even
 * while the replica lags (they go to the primary until the replica has replayed them), a replica past
 * DATABASE_READ_MAX_LAG_MS or stopped serves nothing and costs the client nothing, and /readyz and
 * /metrics say so. PostgreSQL leg only; under CI=true missing binaries fail instead of skipping.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { eventually } from '../features/webhooks/support.ts';
import { createTenant, type Tenant } from '../helpers/factories.ts';
import { admin, api, expectStatus } from '../helpers/http.ts';
import { postgresBin, startReplicatedCluster, type ReplicatedCluster } from '../../scripts/lib/pg-cluster.ts';
import { buildTestApp, TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/test-app.ts';

const run = TEST_DATABASE_URL !== undefined && (postgresBin() !== null || process.env.CI === 'true');
const DATABASE = 'agency';

describe.skipIf(!run)('read replicas (DATABASE_READ_URL)', () => {
  let cluster: ReplicatedCluster;
  const opened: { db: Database; app: FastifyInstance }[] = [];

  /** An app on the primary with the replica for reads, its lag limit `maxLagMs`. */
  async function appWithReplica(maxLagMs: number, redisUrl?: string) {
    const db = await openDatabase({
      databaseUrl: cluster.primaryUrl(DATABASE),
      dataDir: 'memory://',
      poolSize: 4,
      replicas: { urls: [cluster.replicaUrl(DATABASE)], maxLagMs, probeMs: 50, ...(redisUrl ? { redisUrl } : {}) },
    });
    const app = await buildTestApp({}, { db });
    opened.push({ db, app });
    return { db, app };
  }

  const replicaReads = (db: Database) => db.replicaStatus()[0]?.reads ?? 0;

  beforeAll(async () => {
    cluster = await startReplicatedCluster();
    await cluster.primary(`CREATE DATABASE ${DATABASE}`);
    const migrating = await openDatabase({ databaseUrl: cluster.primaryUrl(DATABASE), dataDir: 'memory://' });
    await migrating.migrate();
    await migrating.close();
    await cluster.caughtUp();
  });
  afterAll(async () => {
    for (const { app, db } of opened) {
      await app.close();
      await db.close();
    }
    await cluster?.stop();
  });

  async function contactOf(app: FastifyInstance, tenant: Tenant, firstName: string) {
    const created = await api(app, 'POST', '/v1/contacts', { key: tenant.secret.key, body: { firstName, phone: '+34600111222' } });
    return expectStatus(created, 201).data as { id: string };
  }

  it('serves reads from the replica, and an organization reads its own write at once while the replica lags', async () => {
    const { app, db } = await appWithReplica(60_000);
    const tenant = await createTenant(app);
    const other = await createTenant(app);
    await cluster.caughtUp();
    await eventually(async () => expect(db.replicaStatus()[0]?.state).toBe('ok'));

    // Nothing written since the replica caught up: once its next probe says so, lists come from it.
    await eventually(async () => {
      const before = replicaReads(db);
      expectStatus(await api(app, 'GET', '/v1/contacts', { key: other.secret.key }), 200);
      expect(replicaReads(db)).toBe(before + 1);
    });

    await cluster.pauseReplay();
    try {
      const contact = await contactOf(app, tenant, 'Lagging');
      // Written on the primary, not replayed by the replica: the writer's read goes to the primary.
      const reads = replicaReads(db);
      const read = await api(app, 'GET', `/v1/contacts/${contact.id}`, { key: tenant.secret.key });
      expect(expectStatus(read, 200).data.firstName).toBe('Lagging');
      expect(replicaReads(db)).toBe(reads);
      // Another organization, with nothing newer than the replica, still reads there.
      expectStatus(await api(app, 'GET', '/v1/contacts', { key: other.secret.key }), 200);
      expect(replicaReads(db)).toBe(reads + 1);
    } finally {
      await cluster.resumeReplay();
    }
    // Once the replica has replayed the write, the writer's reads go back to it.
    await cluster.caughtUp();
    await eventually(async () => {
      const reads = replicaReads(db);
      expectStatus(await api(app, 'GET', '/v1/contacts', { key: tenant.secret.key }), 200);
      expect(replicaReads(db)).toBe(reads + 1);
    });
  });

  it('with REDIS_URL, a write through one process is read at once through another while the replica lags', async () => {
    // Two API processes behind one load balancer: each has its own pools and its own replica set.
    const one = await appWithReplica(60_000, TEST_REDIS_URL);
    const two = await appWithReplica(60_000, TEST_REDIS_URL);
    const tenant = await createTenant(one.app);
    await cluster.caughtUp();
    await eventually(async () => {
      const before = replicaReads(two.db);
      expectStatus(await api(two.app, 'GET', '/v1/contacts', { key: tenant.secret.key }), 200);
      expect(replicaReads(two.db)).toBe(before + 1);
    });
    await cluster.pauseReplay();
    try {
      const contact = await contactOf(one.app, tenant, 'Elsewhere');
      const read = await api(two.app, 'GET', `/v1/contacts/${contact.id}`, { key: tenant.secret.key });
      expect(expectStatus(read, 200).data.firstName).toBe('Elsewhere');
    } finally {
      await cluster.resumeReplay();
    }
  });

  it('skips a replica further behind than DATABASE_READ_MAX_LAG_MS, and /readyz and /metrics show its lag', async () => {
    const { app, db } = await appWithReplica(300);
    const tenant = await createTenant(app);
    await cluster.caughtUp();
    await eventually(async () => expect(db.replicaStatus()[0]?.state).toBe('ok'));
    await cluster.pauseReplay();
    try {
      await contactOf(app, tenant, 'Behind');
      await eventually(async () => expect(db.replicaStatus()[0]?.state).toBe('lagging'));
      const status = db.replicaStatus()[0];
      expect(status?.lagMs).toBeGreaterThan(300);
      const other = await createTenant(app);
      const reads = replicaReads(db);
      expectStatus(await api(app, 'GET', '/v1/contacts', { key: other.secret.key }), 200);
      expect(replicaReads(db)).toBe(reads);

      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'degraded', replicas: [{ state: 'lagging' }] });
      const metrics = (await admin(app, 'GET', '/metrics')).body;
      expect(metrics).toMatch(/db_replica_lag_seconds\{replica="127\.0\.0\.1:\d+\/agency"\} \d/);
      expect(metrics).toMatch(/db_replica_up\{replica="127\.0\.0\.1:\d+\/agency"\} 0/);
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.caughtUp();
    await eventually(async () => expect(db.replicaStatus()[0]?.state).toBe('ok'));
    expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toMatchObject({
      status: 'ready',
      replicas: [{ state: 'ok' }],
    });
  });

  it('keeps answering from the primary when the replica is stopped, and /readyz says degraded', async () => {
    const { app, db } = await appWithReplica(60_000);
    const tenant = await createTenant(app);
    await cluster.caughtUp();
    await eventually(async () => expect(db.replicaStatus()[0]?.state).toBe('ok'));
    await cluster.stopReplica();
    try {
      // The first read may still pick the replica: it fails over to the primary within the request.
      for (let i = 0; i < 5; i++) {
        expectStatus(await api(app, 'GET', '/v1/contacts', { key: tenant.secret.key }), 200);
      }
      await eventually(async () => expect(db.replicaStatus()[0]?.state).toBe('down'));
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'degraded', replicas: [{ state: 'down' }] });
      const contact = await contactOf(app, tenant, 'Primary');
      const read = await api(app, 'GET', `/v1/contacts/${contact.id}`, { key: tenant.secret.key });
      expect(expectStatus(read, 200).data.firstName).toBe('Primary');
    } finally {
      await cluster.startReplica();
    }
    await eventually(async () => expect(db.replicaStatus()[0]?.state).toBe('ok'), 20_000);
  });
});
