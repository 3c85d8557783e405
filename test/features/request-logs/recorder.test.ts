/**
 * The request-log buffer (platform/request-logs/recorder.ts) on the real test database: bounded,
 * batched, drops and counts what it cannot hold or write.
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Database } from '../../../src/db/database.ts';
import { RequestLogRecorder, type RequestLogLine } from '../../../src/platform/request-logs/recorder.ts';
import { createOrganization } from '../../helpers/factories.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

const silent = { warn: () => undefined };
let app: FastifyInstance;
let db: Database;

function line(organizationId: string, n: number): RequestLogLine {
  return {
    organizationId,
    at: new Date(),
    requestId: `req_unit${n}`,
    keyId: null,
    keyPrefix: null,
    method: 'GET',
    path: '/v1/contacts',
    operationId: 'contacts.list',
    mcpTool: n % 2 === 0 ? null : 'search_contacts',
    status: 200 + n,
    errorCode: null,
    errorMessage: n === 1 ? 'with a message' : null,
    latencyMs: n,
    ip: '127.0.0.1',
  };
}

async function counter(metric: { get(): Promise<{ values: { value: number }[] }> }) {
  return (await metric.get()).values[0]?.value ?? 0;
}

async function linesOf(organizationId: string) {
  return db.systemTx((tx) =>
    queryRows<{ request_id: string; status: number; mcp_tool: string | null; error_message: string | null }>(
      tx,
      sql`SELECT request_id, status, mcp_tool, error_message FROM request_logs WHERE organization_id = ${organizationId} ORDER BY request_id`,
    ),
  );
}

beforeAll(async () => {
  app = await buildTestApp();
  db = await testDatabase();
});
afterAll(async () => {
  await app.close();
});

describe('RequestLogRecorder', () => {
  it('drops and counts lines past a full buffer, and writes the rest in one INSERT', async () => {
    const org = await createOrganization(app);
    const recorder = new RequestLogRecorder(db, silent, { maxBuffered: 3, batchRows: 100, timer: false });
    for (let n = 0; n < 5; n++) recorder.record(line(org.id, n));
    expect(recorder.buffered).toBe(3);
    expect(await counter(recorder.dropped)).toBe(2);
    await recorder.close();
    expect(recorder.buffered).toBe(0);
    expect(await counter(recorder.written)).toBe(3);
    expect(await linesOf(org.id)).toEqual([
      { request_id: 'req_unit0', status: 200, mcp_tool: null, error_message: null },
      { request_id: 'req_unit1', status: 201, mcp_tool: 'search_contacts', error_message: 'with a message' },
      { request_id: 'req_unit2', status: 202, mcp_tool: null, error_message: null },
    ]);
  });

  it('drops and counts a batch whose write fails, without throwing, and writes the next one', async () => {
    const org = await createOrganization(app);
    const recorder = new RequestLogRecorder(db, silent, { batchRows: 2, timer: false });
    // An organization that does not exist: the INSERT of that batch fails (foreign key).
    recorder.record(line('org_00000000000000000000000', 0));
    recorder.record(line(org.id, 1));
    recorder.record(line(org.id, 2));
    await recorder.flush();
    expect(await counter(recorder.dropped)).toBe(2);
    expect(await counter(recorder.written)).toBe(1);
    expect((await linesOf(org.id)).map((row) => row.request_id)).toEqual(['req_unit2']);
  });

  it('writes a full batch without waiting for the timer', async () => {
    const org = await createOrganization(app);
    const recorder = new RequestLogRecorder(db, silent, { batchRows: 2, timer: false });
    recorder.record(line(org.id, 1));
    expect(recorder.buffered).toBe(1);
    recorder.record(line(org.id, 2));
    // The second line filled a batch: its write started at once.
    expect(recorder.buffered).toBe(0);
    await recorder.flush();
    expect(await counter(recorder.written)).toBe(2);
    expect(await linesOf(org.id)).toHaveLength(2);
  });
});
