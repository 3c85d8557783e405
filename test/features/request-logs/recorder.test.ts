/** The request-log buffer (platform/request-logs/recorder.ts): bounded, batched, drops and counts. */
import { describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import { RequestLogRecorder, type RequestLogLine } from '../../../src/platform/request-logs/recorder.ts';

const silent = { warn: () => undefined };

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
    mcpTool: null,
    status: 200,
    errorCode: null,
    errorMessage: null,
    latencyMs: 1,
    ip: null,
  };
}

async function counter(metric: { get(): Promise<{ values: { value: number }[] }> }) {
  return (await metric.get()).values[0]?.value ?? 0;
}

describe('RequestLogRecorder', () => {
  it('drops and counts lines past a full buffer, and writes the rest in one INSERT', async () => {
    const inserts: number[] = [];
    const tx = { insert: () => ({ values: async (rows: unknown[]) => void inserts.push(rows.length) }) };
    const db = { systemTx: (fn: (t: typeof tx) => Promise<unknown>) => fn(tx) } as unknown as Database;
    const recorder = new RequestLogRecorder(db, silent, { maxBuffered: 3, batchRows: 100, timer: false });
    for (let n = 0; n < 5; n++) recorder.record(line('org_x', n));
    expect(recorder.buffered).toBe(3);
    expect(await counter(recorder.dropped)).toBe(2);
    await recorder.close();
    expect(recorder.buffered).toBe(0);
    expect(inserts).toEqual([3]);
    expect(await counter(recorder.written)).toBe(3);
  });

  it('drops and counts a batch whose write fails, without throwing', async () => {
    const failing = { systemTx: () => Promise.reject(new Error('database down')) } as unknown as Database;
    const recorder = new RequestLogRecorder(failing, silent, { batchRows: 2, timer: false });
    for (let n = 0; n < 3; n++) recorder.record(line('org_x', n));
    await recorder.flush();
    expect(await counter(recorder.dropped)).toBe(3);
    expect(await counter(recorder.written)).toBe(0);
  });

  it('writes a full batch without waiting for the timer', async () => {
    let calls = 0;
    const slow = {
      systemTx: async () => {
        calls += 1;
      },
    } as unknown as Database;
    const recorder = new RequestLogRecorder(slow, silent, { batchRows: 2, timer: false });
    recorder.record(line('org_x', 1));
    expect(calls).toBe(0);
    recorder.record(line('org_x', 2));
    await recorder.flush();
    expect(calls).toBe(1);
    expect(await counter(recorder.written)).toBe(2);
  });
});
