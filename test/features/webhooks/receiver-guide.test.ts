/**
 * The Node receiver printed in docs/webhooks.md, run as written: it must accept real deliveries
 * (and their retries only once) and refuse a tampered body.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import type { RunningJobs } from '../../../src/platform/jobs/scheduler.ts';
import { createTenant, FAST } from '../../helpers/factories.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { freePort } from '../../../scripts/lib/ports.ts';
import { emit, eventually, startWorker, subscribe } from './support.ts';

const GUIDE = fileURLToPath(new URL('../../../docs/webhooks.md', import.meta.url));

function guideReceiver(): string {
  const text = readFileSync(GUIDE, 'utf8');
  const block = /```js\n(\/\/ receiver\.mjs[\s\S]*?)```/.exec(text);
  if (!block?.[1]) throw new Error('docs/webhooks.md lost its receiver example');
  return block[1];
}

let app: FastifyInstance;
let db: Database;
let worker: RunningJobs;
let child: ChildProcess;
let output = '';
const dir = mkdtempSync(join(tmpdir(), 'receiver-guide-'));
let port: number;

beforeAll(async () => {
  // A port the system gave out and nobody holds (a random one could be another test's server).
  port = await freePort();
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  db = await testDatabase();
  // 3 s: this test accepts a first attempt that timed out after the receiver handled it (see below).
  worker = startWorker(db, { webhookTimeoutMs: 3_000 });
});
afterAll(async () => {
  child?.kill('SIGTERM');
  await worker.stop();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

it(
  'accepts signed deliveries, handles each event once, and refuses a tampered body',
  { timeout: 90_000 },
  async () => {
    const tenant = await createTenant(app, { secret: FAST });
    const hook = await subscribe(app, tenant.secret.key, `http://127.0.0.1:${port}/`, ['deal.won']);
    const file = join(dir, 'receiver.mjs');
    writeFileSync(file, guideReceiver());
    child = spawn(process.execPath, [file], {
      env: { PATH: process.env.PATH, WEBHOOK_SECRET: hook.secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(async () => {
      const probe = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });
      expect(probe.status).toBe(400);
    });

    const eventId = await emit(db, tenant.org.id, 'deal.won');
    await eventually(async () => expect(output).toContain(`received deal.won ${eventId}`), 30_000);

    // A replay of the same event is answered 200 and not handled again.
    const [delivery] = (
      await app.inject({
        method: 'GET',
        url: `/v1/webhooks/${hook.id}/deliveries`,
        headers: { 'x-api-key': tenant.secret.key },
      })
    ).json().data;
    await eventually(async () => {
      const retry = await app.inject({
        method: 'POST',
        url: `/v1/webhooks/deliveries/${delivery.id}/retry`,
        headers: { 'x-api-key': tenant.secret.key },
      });
      expect(retry.statusCode).toBe(202);
    });
    await eventually(async () => {
      const log = await app.inject({
        method: 'GET',
        url: `/v1/webhooks/${hook.id}/deliveries`,
        headers: { 'x-api-key': tenant.secret.key },
      });
      const [again] = log.json().data;
      // Two answered 200 (the first and the replay). On a loaded machine the first attempt can time out
      // after the receiver handled it; the worker's retry is then answered 200 too, and not handled again.
      const codes = again.attempts.map((a: { statusCode: number | null }) => a.statusCode);
      expect(codes.filter((code: number | null) => code === 200).length).toBeGreaterThanOrEqual(2);
      expect(codes.at(-1)).toBe(200);
    });
    expect(output.split(`received deal.won ${eventId}`)).toHaveLength(2);

    // A body changed after signing is refused.
    const tampered = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'x-service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
      body: JSON.stringify({ id: 'evt_forged', type: 'deal.won' }),
    });
    expect(tampered.status).toBe(400);
    expect(output).not.toContain('evt_forged');
  },
);
