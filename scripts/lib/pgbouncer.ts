import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports.ts';

/** Debian's package (`apt-get install -y pgbouncer`, as .ci/run does). */
export const PGBOUNCER_PATH = process.env.PGBOUNCER_PATH || '/usr/sbin/pgbouncer';
export const pgbouncerInstalled = () => existsSync(PGBOUNCER_PATH);

export interface RunningPgbouncer {
  port: number;
  /** A URL through the pooler to `database` on the PostgreSQL server it fronts. */
  url(database: string): string;
  /** Its log so far (for a failing test's message). */
  log(): string;
  /** Stops it (every connection through it breaks) and starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real PgBouncer in front of the PostgreSQL at `server` (host:port, trust auth as on this machine),
 * every database name passed through, in `poolMode` with `serverPool` server connections per
 * database: fewer than a client pool, so transactions of one client land on different servers.
 * Runs as the `postgres` user when started as root (PgBouncer refuses root).
 */
export async function startPgbouncer(
  options: { server?: string; poolMode?: 'transaction' | 'session'; serverPool?: number } = {},
): Promise<RunningPgbouncer> {
  const [host, serverPort] = (options.server ?? '127.0.0.1:5432').split(':');
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const logFile = join(dir, 'pgbouncer.log');
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${host} port=${serverPort} user=postgres`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      `pool_mode = ${options.poolMode ?? 'transaction'}`,
      `default_pool_size = ${options.serverPool ?? 4}`,
      'max_client_conn = 500',
      `logfile = ${logFile}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      // What a stock configuration does: no startup parameter beyond the ones PgBouncer knows is ignored.
      '',
    ].join('\n'),
  );
  for (const file of ['users.txt', 'pgbouncer.ini']) chmodSync(join(dir, file), 0o644);
  const asRoot = process.getuid?.() === 0;
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;

  /** Starts the process and waits until it answers a query. */
  const launch = async (): Promise<ChildProcess> => {
    const child = spawn(PGBOUNCER_PATH, [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], {
      stdio: 'ignore',
    });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const client = new pg.Client({ connectionString: url('postgres') });
      try {
        await client.connect();
        await client.query('SELECT 1');
        await client.end();
        return child;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (Date.now() > deadline || child.exitCode !== null) {
          child.kill('SIGKILL');
          throw new Error(`PgBouncer did not start: ${(error as Error).message}\n${log()}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  /** SIGINT: PgBouncer closes every client and server connection at once. */
  const halt = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  };

  let child = await launch();
  return {
    port,
    url,
    log,
    async restart() {
      await halt(child);
      child = await launch();
    },
    async stop() {
      await halt(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
