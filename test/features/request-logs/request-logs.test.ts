/**
 * Request logs (issue 22, decision 0213): what the API answered is recorded off the request path and
 * listed to the operator, with nothing of bodies, query strings or personal data.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import { purgeRequestLogs, type RequestLog } from '../../../src/features/request-logs/index.ts';
import { queryRows } from '../../../src/db/database.ts';
import { sql } from 'drizzle-orm';
import { createApiKey, createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

const PHONE = '+34612345678';
const EMAIL = 'lucia.logs@example.com';

async function logsOf(app: FastifyInstance, orgId: string, query: Record<string, string> = {}) {
  await app.requestLogs.flush();
  const search = new URLSearchParams(query).toString();
  const response = await admin(
    app,
    'GET',
    `/admin/v1/organizations/${orgId}/request-logs${search ? `?${search}` : ''}`,
  );
  return expectStatus(response, 200) as { data: RequestLog[]; meta: { total: number } };
}

describe('request logs', () => {
  let app: FastifyInstance;
  let db: Database;
  let mine: Tenant;
  let theirs: Tenant;

  beforeAll(async () => {
    app = await buildTestApp();
    db = await testDatabase();
    mine = await createTenant(app);
    theirs = await createTenant(app);
  });
  afterAll(async () => {
    await app.close();
  });

  it('records a failing v1 request with its request id, key, status, code and masked message', async () => {
    const first = await api(app, 'POST', '/v1/contacts?utm=secret-query', {
      key: mine.secret.key,
      body: { firstName: 'Lucía', phone: PHONE, email: EMAIL },
    });
    expectStatus(first, 201);
    const duplicate = await api(app, 'POST', '/v1/contacts', {
      key: mine.secret.key,
      body: { firstName: 'Body-Only-Name', phone: PHONE },
    });
    const error = expectError(duplicate, 409, 'DUPLICATE');
    expect(error.message, 'the envelope names the phone, so the log must mask it').toContain(PHONE);

    const { data } = await logsOf(app, mine.org.id, {
      requestId: duplicate.headers['x-request-id'] as string,
    });
    expect(data).toHaveLength(1);
    const line = data[0] as RequestLog;
    expect(line).toMatchObject({
      requestId: duplicate.headers['x-request-id'],
      keyId: mine.secret.id,
      keyPrefix: mine.secret.keyPrefix,
      method: 'POST',
      path: '/v1/contacts',
      operationId: 'contacts.create',
      mcpTool: null,
      status: 409,
      errorCode: 'DUPLICATE',
      livemode: true,
    });
    expect(line.errorMessage).toContain('+34 6** ** ** 78');
    expect(line.errorMessage).not.toContain('612345678');
    expect(line.errorMessage).not.toContain(PHONE);
    expect(line.latencyMs).toBeGreaterThanOrEqual(0);
    expect(line.ip).toBe('127.0.0.1');

    // Nothing of the body or the query string, in any column of any of this organization's lines.
    const rows = await db.systemTx((tx) =>
      queryRows<Record<string, unknown>>(
        tx,
        sql`SELECT * FROM request_logs WHERE organization_id = ${mine.org.id}`,
      ),
    );
    const stored = JSON.stringify(rows);
    for (const secret of [
      'secret-query',
      'utm',
      'Lucía',
      'Body-Only-Name',
      'lucia.logs',
      '612345678',
      '12345678',
    ])
      expect(stored, secret).not.toContain(secret);
  });

  it('records a 404 of a known route, and a 403 of a missing scope', async () => {
    const missing = await api(app, 'GET', '/v1/contacts/ct_0000000000000000000000', { key: mine.secret.key });
    expectError(missing, 404, 'NOT_FOUND');
    const noScope = await createApiKey(app, mine.org.id, { type: 'secret', scopes: [] });
    const refused = await api(app, 'GET', '/v1/contacts', { key: noScope.key });
    expect(refused.statusCode).toBe(403);
    const { data } = await logsOf(app, mine.org.id, { status: '4xx' });
    const byId = new Map(data.map((line) => [line.requestId, line]));
    expect(byId.get(missing.headers['x-request-id'] as string)).toMatchObject({
      status: 404,
      errorCode: 'NOT_FOUND',
    });
    expect(byId.get(refused.headers['x-request-id'] as string)).toMatchObject({
      status: 403,
      keyId: noScope.id,
    });
  });

  it('records the tool of an MCP tools/call, and nothing of its arguments', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { authorization: `Bearer ${mine.secret.key}`, accept: 'application/json, text/event-stream' },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_contacts', arguments: { q: 'mcp-argument-text' } },
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    const { data } = await logsOf(app, mine.org.id, { path: '/mcp' });
    const line = data.find((item) => item.requestId === response.headers['x-request-id']);
    expect(line).toMatchObject({
      method: 'POST',
      path: '/mcp',
      operationId: 'mcp.call',
      mcpTool: 'search_contacts',
      status: 200,
    });
    expect(JSON.stringify(data)).not.toContain('mcp-argument-text');
  });

  it("does not show one organization's lines in another's listing, and 404s an unknown organization", async () => {
    const call = await api(app, 'GET', '/v1/contacts', { key: mine.secret.key });
    const requestId = call.headers['x-request-id'] as string;
    expect((await logsOf(app, mine.org.id, { requestId })).data).toHaveLength(1);
    expect((await logsOf(app, theirs.org.id, { requestId })).data).toHaveLength(0);
    expect((await logsOf(app, theirs.org.id)).data.every((line) => line.keyId !== mine.secret.id)).toBe(true);
    expectError(
      await admin(app, 'GET', '/admin/v1/organizations/org_0000000000000000000000/request-logs'),
      404,
      'NOT_FOUND',
    );
    expectError(
      await api(app, 'GET', `/admin/v1/organizations/${mine.org.id}/request-logs`),
      401,
      'UNAUTHORIZED',
    );
  });

  it("lists the test twin's lines in the live listing with livemode false; mode and the twin id narrow it", async () => {
    const testKey = await createApiKey(app, mine.org.id, {
      type: 'secret',
      mode: 'test',
      scopes: ['contacts:read'],
    });
    const call = await api(app, 'GET', '/v1/contacts', { key: testKey.key });
    expectStatus(call, 200);
    const requestId = call.headers['x-request-id'] as string;
    const [line] = (await logsOf(app, mine.org.id, { requestId })).data;
    expect(line).toMatchObject({ livemode: false, keyId: testKey.id });
    expect((await logsOf(app, mine.org.id, { requestId, mode: 'live' })).data).toHaveLength(0);
    expect((await logsOf(app, mine.org.id, { requestId, mode: 'test' })).data).toHaveLength(1);
    expect((await logsOf(app, testKey.organizationId, { requestId })).data).toHaveLength(1);
    expect((await logsOf(app, testKey.organizationId)).data.every((item) => !item.livemode)).toBe(true);
  });

  it('filters by status class and exact status, key, path prefix, operationId and time; pages newest first', async () => {
    const tenant = await createTenant(app);
    const other = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['contacts:read'] });
    const before = new Date(Date.now() - 1);
    expectStatus(await api(app, 'GET', '/v1/contacts', { key: tenant.secret.key }), 200);
    expectStatus(await api(app, 'GET', '/v1/properties', { key: tenant.secret.key }), 200);
    expectError(
      await api(app, 'GET', '/v1/contacts/ct_0000000000000000000000', { key: other.key }),
      404,
      'NOT_FOUND',
    );
    const all = await logsOf(app, tenant.org.id, { since: before.toISOString() });
    expect(all.data.map((line) => line.path)).toEqual([
      '/v1/contacts/ct_0000000000000000000000',
      '/v1/properties',
      '/v1/contacts',
    ]);
    expect((await logsOf(app, tenant.org.id, { status: '2xx' })).data).toHaveLength(2);
    expect((await logsOf(app, tenant.org.id, { status: '404' })).data).toHaveLength(1);
    expect((await logsOf(app, tenant.org.id, { status: '5xx' })).data).toHaveLength(0);
    expect((await logsOf(app, tenant.org.id, { keyId: other.id })).data).toHaveLength(1);
    expect((await logsOf(app, tenant.org.id, { path: '/v1/contacts' })).data).toHaveLength(2);
    expect((await logsOf(app, tenant.org.id, { operationId: 'properties.list' })).data).toHaveLength(1);
    expect((await logsOf(app, tenant.org.id, { until: before.toISOString() })).data).toHaveLength(0);
    const page = await logsOf(app, tenant.org.id, { pageSize: '1', page: '2' });
    expect(page.meta.total).toBe(3);
    expect(page.data.map((line) => line.path)).toEqual(['/v1/properties']);
    expectError(
      await admin(app, 'GET', `/admin/v1/organizations/${tenant.org.id}/request-logs?status=4x`),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await admin(
        app,
        'GET',
        `/admin/v1/organizations/${tenant.org.id}/request-logs?since=2026-11-02&until=2026-11-01`,
      ),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('does not record the admin API', async () => {
    const tenant = await createTenant(app);
    await logsOf(app, tenant.org.id);
    expect((await logsOf(app, tenant.org.id)).meta.total).toBe(0);
  });

  it('counts written lines in /metrics', async () => {
    await app.requestLogs.flush();
    const metrics = await admin(app, 'GET', '/metrics');
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toMatch(/request_logs_written_total [1-9]/);
    expect(metrics.body).toMatch(/request_logs_dropped_total 0/);
  });

  it('purges lines older than the retention', async () => {
    const tenant = await createTenant(app);
    expectStatus(await api(app, 'GET', '/v1/contacts', { key: tenant.secret.key }), 200);
    await app.requestLogs.flush();
    await db.systemTx((tx) =>
      tx.execute(
        sql`UPDATE request_logs SET at = now() - interval '8 days' WHERE organization_id = ${tenant.org.id}`,
      ),
    );
    expectStatus(await api(app, 'GET', '/v1/properties', { key: tenant.secret.key }), 200);
    await app.requestLogs.flush();
    const purged = await purgeRequestLogs(db, 7, { batchSize: 1 });
    expect(purged).toBeGreaterThanOrEqual(1);
    const { data } = await logsOf(app, tenant.org.id);
    expect(data.map((line) => line.path)).toEqual(['/v1/properties']);
  });
});

describe('request logs switched off', () => {
  it('REQUEST_LOG_ENABLED=false records nothing', async () => {
    const app = await buildTestApp({ REQUEST_LOG_ENABLED: 'false' });
    try {
      const tenant = await createTenant(app);
      expectStatus(await api(app, 'GET', '/v1/contacts', { key: tenant.secret.key }), 200);
      expect((await logsOf(app, tenant.org.id)).meta.total).toBe(0);
    } finally {
      await app.close();
    }
  });
});
