/**
 * Both ends of webhook deliveries for the benchmarks: a local receiver (node:http, answers 200 at
 * once, notes when each (event, subscription) first arrived) and the delivery worker in its own
 * process (`src/worker.ts`, as `npm run worker` runs it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { BENCH_ADMIN_TOKEN, BENCH_SECRETS_KEY } from './protocol.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The receiver: answers 200 at once and notes when each (event, subscription) arrived. */
export async function startReceiver() {
  const arrivals = new Map<string, number>();
  let total = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const key = `${request.headers['webhook-id']} ${request.url}`;
      if (!arrivals.has(key)) arrivals.set(key, Date.now());
      total += 1;
      response.writeHead(200).end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    arrivals,
    total: () => total,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function startWorker(databaseUrl: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      SECRETS_KEY: BENCH_SECRETS_KEY,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    },
  });
}

/** Stops the worker (SIGTERM: it finishes its batch and closes its pool) and waits for it to exit. */
export async function stopWorker(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGTERM');
  await exited;
}
