/**
 * The service's processes for `npm run topology`: API servers (`src/server.ts`, as `npm start` runs
 * it) and delivery workers (`src/worker.ts`, as `npm run worker` does), each its own Node process,
 * killed and restarted on the same port as an orchestrator would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServiceProcess {
  readonly name: string;
  /** The API's base URL (workers: null). */
  readonly url: string | null;
  alive(): boolean;
  /** Started and answering /readyz, not killed since: what a load balancer's health check sends to. */
  serving(): boolean;
  /** SIGKILL: a crash, nothing finishes. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** Starts it again with the same settings (and port), and waits until it serves. */
  start(): Promise<void>;
  /** SIGTERM: a graceful stop. */
  stop(): Promise<void>;
  /** What it wrote on stderr (the last 4 KB), for a failure's message. */
  errors(): string;
}

/** Polls `ready` until it is true; `failed` (checked first) ends the wait with its error. */
async function waitUntil(
  ready: () => Promise<boolean>,
  failed: () => Error | null,
  what: string,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const error = failed();
    if (error) throw error;
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} did not start within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** An API process (`port` fixed, so a restart comes back where the load balancer sends requests) or a worker. */
export function serviceProcess(
  name: string,
  kind: 'api' | 'worker',
  env: Record<string, string>,
  port?: number,
): ServiceProcess {
  let child: ChildProcess | null = null;
  let ready = false;
  let stderr = '';
  const url = kind === 'api' ? `http://127.0.0.1:${port}` : null;
  const alive = () => child !== null && child.exitCode === null && child.signalCode === null;
  const end = async (signal: NodeJS.Signals) => {
    ready = false;
    if (!child || !alive()) return;
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill(signal);
    await exited;
  };

  return {
    name,
    url,
    alive,
    serving: () => ready && alive(),
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
    errors: () => stderr.slice(-4096),
    async start() {
      const entry = kind === 'api' ? 'src/server.ts' : 'src/worker.ts';
      const started = spawn(process.execPath, ['--import', 'tsx', entry], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: {
          PATH: process.env.PATH ?? '',
          ...env,
          ...(kind === 'api' ? { PORT: String(port), RUN_WORKER: 'false' } : {}),
        },
      });
      started.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-8192);
      });
      child = started;
      if (url === null) {
        // A worker has no port: alive for a second after its migrations is started.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        if (!alive()) throw new Error(`${name} exited at start:\n${stderr}`);
        ready = true;
        return;
      }
      await waitUntil(
        async () => (await fetch(`${url}/readyz`)).status === 200,
        () => (alive() ? null : new Error(`${name} exited at start:\n${stderr}`)),
        name,
      );
      ready = true;
    },
  };
}
