import { expect } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Database } from '../../../src/db/database.ts';
import {
  DeliveryWorker,
  type DeliveryWorkerSettings,
} from '../../../src/features/webhooks/webhooks.worker.ts';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import { recordEvent } from '../../../src/platform/events/record.ts';
import { startJobs } from '../../../src/platform/jobs/scheduler.ts';
import type { Lookup } from '../../../src/features/webhooks/webhooks.ssrf.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { ADMIN_TOKEN } from '../../helpers/test-app.ts';

/**
 * A DNS resolver with made-up names (the real one is used for nothing): each name maps to its
 * addresses, which a test may change (DNS rebinding); unknown names fail like NXDOMAIN.
 */
export function fakeDns(table: Record<string, string[]>): Lookup & { table: Record<string, string[]> } {
  const lookup = ((hostname: string, options: unknown, callback: unknown) => {
    const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
    const all =
      typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
    const addresses = isIP(hostname) ? [hostname] : lookup.table[hostname];
    setImmediate(() => {
      if (!addresses || addresses.length === 0) {
        done(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
        return;
      }
      const list: LookupAddress[] = addresses.map((address) => ({ address, family: isIP(address) }));
      if (all) done(null, list);
      else done(null, list[0]?.address, list[0]?.family);
    });
  }) as unknown as Lookup & { table: Record<string, string[]> };
  lookup.table = table;
  return lookup;
}

export interface CreatedWebhook {
  id: string;
  url: string;
  secret: string;
  eventTypes: string[];
  enabled: boolean;
}

export async function subscribe(
  app: FastifyInstance,
  key: string,
  url: string,
  eventTypes: string[] = ['*'],
): Promise<CreatedWebhook> {
  const response = await api(app, 'POST', '/v1/webhooks', {
    key,
    body: { url, eventTypes, description: 'test' },
  });
  return expectStatus(response, 201).data;
}

/**
 * Records `count` events of `type` in one transaction of the organization: a backlog of deliveries
 * queued at once. Returns the event ids.
 */
export async function emitMany(db: Database, organizationId: string, type: string, count: number) {
  const definition = eventCatalog.get(type);
  if (!definition) throw new Error(`no event type ${type}`);
  return db.tenantTx(organizationId, async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const event = await recordEvent(tx, {
        type,
        data: definition.example as Record<string, unknown>,
        actor: { kind: 'API', userId: null },
      });
      ids.push(event.id);
    }
    return ids;
  });
}

/** Records `type` with its catalog example in the organization's transaction (the one recording path). */
export async function emit(db: Database, organizationId: string, type: string): Promise<string> {
  const [id] = await emitMany(db, organizationId, type, 1);
  return id as string;
}

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * SECRETS_KEY shared by a test's app and the worker processes it starts: the app seals the signing
 * secrets the workers open (an in-memory app's own key dies with the test process).
 */
export const PROCESS_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

/**
 * `npm run worker` as a child process on the PostgreSQL at `databaseUrl` (PGlite serves one
 * process only). Lease = 2 x WEBHOOK_TIMEOUT_MS + 1 s = 5 s: how long a killed worker's claims stay taken.
 */
export function startWorkerProcess(databaseUrl: string, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    cwd: ROOT,
    stdio: process.env.DEBUG_WORKER ? 'inherit' : 'ignore',
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      DATABASE_PREPARED_STATEMENTS: process.env.TEST_DATABASE_PREPARED_STATEMENTS ?? 'true',
      ADMIN_TOKEN,
      LOG_LEVEL: process.env.DEBUG_WORKER ? 'info' : 'silent',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_RETRY_DELAYS_MS: '0,200,200,200,200',
      SECRETS_KEY: PROCESS_SECRETS_KEY,
      ...env,
    },
  });
}

/** Sends `signal` (SIGTERM: graceful; SIGKILL: a crash) and waits for the process to exit. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/**
 * Runs one delivery worker of `db` until stopped (tiny delays and polls). The time limit of an
 * attempt is generous: a test process's event loop stalls for seconds at times (a PGlite opening
 * or an app being built in the same fork, test/helpers/per-file-database.ts reports them), and an
 * answer read after the limit is a timeout. Tests of the limit itself set a shorter one.
 */
export function startWorker(db: Database, settings: Partial<DeliveryWorkerSettings> = {}) {
  // Errors reach stderr: a worker job failing in a test must not fail silently. WORKER_DEBUG=1 adds
  // each claim and each attempt (sent, answered) with the test file's name.
  const log = pino(
    { level: process.env.WORKER_DEBUG ? 'debug' : 'error', base: { file: expect.getState().testPath } },
    pino.destination(2),
  );
  const worker = new DeliveryWorker(
    db,
    {
      webhookRetryDelaysMs: [0, 300, 300, 300, 300],
      webhookTimeoutMs: 8_000,
      webhookAllowPrivateUrls: true,
      pollMs: 20,
      ...settings,
    },
    log,
  );
  return startJobs([worker.job()], log);
}

/** The delivery log of a subscription, as the API shows it. */
export async function deliveriesOf(app: FastifyInstance, key: string, id: string, query = '') {
  return expectStatus(await api(app, 'GET', `/v1/webhooks/${id}/deliveries${query}`, { key }), 200).data as {
    id: string;
    eventId: string;
    eventType: string;
    status: string;
    attemptCount: number;
    lastError: string | null;
    attempts: {
      attempt: number;
      statusCode: number | null;
      error: string | null;
      responseBody: string | null;
      durationMs: number | null;
    }[];
  }[];
}

/** Polls until `check` passes (a delivery's final state is written just after the receiver answers). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
