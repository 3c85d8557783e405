/**
 * The delivery worker as separate processes (`npm run worker`) on PostgreSQL: killed with SIGKILL
 * in the middle of deliveries and restarted, nothing is lost; two workers side by side never send
 * a delivery twice. PGlite serves one process only, so this file runs on the PostgreSQL leg.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import { ADMIN_TOKEN, buildTestApp, TEST_DATABASE_URL, testDatabase } from '../../helpers/test-app.ts';
import { Receiver } from './receiver.ts';
import { busyTenant, emit, eventually, subscribe } from './support.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

function startWorkerProcess(): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    cwd: ROOT,
    stdio: 'ignore',
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      DATABASE_URL: TEST_DATABASE_URL,
      ADMIN_TOKEN,
      LOG_LEVEL: 'silent',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      // Lease = 2 x timeout + 1 s = 5 s: how long a killed worker's claims stay taken.
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_RETRY_DELAYS_MS: '0,200,200,200,200',
    },
  });
}

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

async function statusCounts(db: Database, subscriptionId: string): Promise<Record<string, number>> {
  const result = (await db.systemTx((tx) =>
    tx.execute(
      sql`SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = ${subscriptionId} GROUP BY status`,
    ),
  )) as unknown as { rows: { status: string; n: number }[] };
  return Object.fromEntries(result.rows.map((row) => [row.status, row.n]));
}

describe.skipIf(TEST_DATABASE_URL === undefined)('worker processes (PostgreSQL)', () => {
  let app: FastifyInstance;
  let db: Database;
  let receiver: Receiver;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    db = await testDatabase();
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await Promise.all(children.map((child) => stopProcess(child, 'SIGKILL')));
    await receiver.close();
    await app.close();
  });

  it('loses nothing when the worker is killed with SIGKILL mid-delivery and started again', async () => {
    const tenant = await busyTenant(app);
    const hook = await subscribe(app, tenant.secret.key, receiver.url('/crash'), ['deal.won']);
    receiver.script('/crash', 'hang');
    const ids = new Set<string>();
    for (let i = 0; i < 30; i++) ids.add(await emit(db, tenant.org.id, 'deal.won'));

    const first = startWorkerProcess();
    children.push(first);
    await receiver.waitFor(5, '/crash', 30_000);
    await stopProcess(first, 'SIGKILL');
    receiver.script('/crash', { status: 200 });

    const second = startWorkerProcess();
    children.push(second);
    await eventually(async () => expect(await statusCounts(db, hook.id)).toEqual({ SUCCEEDED: 30 }), 60_000);
    const answered = new Set(receiver.at('/crash').map((request) => request.headers['webhook-id'] as string));
    expect(answered).toEqual(ids);
    await stopProcess(second);
  });

  it('never sends a delivery twice with two workers running side by side', async () => {
    const tenant = await busyTenant(app);
    const hook = await subscribe(app, tenant.secret.key, receiver.url('/pair'), ['contact.*']);
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) ids.add(await emit(db, tenant.org.id, 'contact.updated'));
    const pair = [startWorkerProcess(), startWorkerProcess()];
    children.push(...pair);
    await eventually(async () => expect(await statusCounts(db, hook.id)).toEqual({ SUCCEEDED: 200 }), 60_000);
    const received = receiver.at('/pair').map((request) => request.headers['webhook-id'] as string);
    expect(received).toHaveLength(200);
    expect(new Set(received)).toEqual(ids);
    await Promise.all(pair.map((child) => stopProcess(child)));
  });
});
