import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import { createTenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, TEST_DATABASE_URL, testDatabase } from '../../helpers/test-app.ts';

let app: FastifyInstance;

beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('health', () => {
  it('answers /healthz and /readyz without a key', async () => {
    expect(expectStatus(await app.inject({ method: 'GET', url: '/healthz' }), 200)).toEqual({ status: 'ok' });
    expect(expectStatus(await app.inject({ method: 'GET', url: '/readyz' }), 200)).toEqual({
      status: 'ready',
    });
  });

  it('answers /readyz with 503 when the database does not answer', async () => {
    const real = await testDatabase();
    const broken: Database = { ...real, ping: async () => Promise.reject(new Error('connection refused')) };
    const sick = await buildTestApp({}, { db: broken });
    try {
      const response = await sick.inject({ method: 'GET', url: '/readyz' });
      expectError(response, 503, 'SERVICE_UNAVAILABLE');
      expect(response.headers['retry-after']).toBe('2');
    } finally {
      await sick.close();
    }
  });
});

describe('metrics', () => {
  it('needs the admin token', async () => {
    expectError(await app.inject({ method: 'GET', url: '/metrics' }), 401, 'UNAUTHORIZED');
  });

  it('counts requests and latency by operationId and status', async () => {
    const tenant = await createTenant(app);
    await api(app, 'GET', '/v1/me', { key: tenant.secret.key });
    await api(app, 'GET', '/v1/me');
    const response = await admin(app, 'GET', '/metrics');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/plain/);
    expect(response.body).toMatch(/http_requests_total\{operation_id="me.get",method="GET",status="200"\} 1/);
    expect(response.body).toMatch(/http_requests_total\{operation_id="me.get",method="GET",status="401"\} 1/);
    expect(response.body).toMatch(/http_request_duration_seconds_bucket\{le="0.05",operation_id="me.get"/);
    expect(response.body).toMatch(/process_cpu_user_seconds_total/);
  });

  it('show the database pool on PostgreSQL (size, open and idle connections, waiting transactions)', async () => {
    const body = (await admin(app, 'GET', '/metrics')).body;
    if (TEST_DATABASE_URL === undefined) {
      // The embedded database is one connection: no pool to show.
      expect(body).not.toMatch(/^db_pool_/m);
      return;
    }
    // test/helpers/test-app.ts opens the file's database with a pool of 5.
    expect(body).toMatch(/^db_pool_max_connections 5$/m);
    const open = Number(/^db_pool_connections\{state="open"\} (\d+)$/m.exec(body)?.[1]);
    const idle = Number(/^db_pool_connections\{state="idle"\} (\d+)$/m.exec(body)?.[1]);
    expect(open).toBeGreaterThanOrEqual(1);
    expect(idle).toBeLessThanOrEqual(open);
    expect(body).toMatch(/^db_pool_waiting_transactions 0$/m);
  });
});
