/**
 * A PostgreSQL primary and a streaming replica of its own, on this machine's PostgreSQL binaries:
 * `initdb`, then `pg_basebackup -R` (the replica follows the primary over a replication
 * connection). Clusters live in a temporary folder, on free ports, and are removed by `stop`. Runs
 * the servers as the `postgres` user when started as root (PostgreSQL refuses root).
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.ts';

const run = promisify(execFile);

/** The newest PostgreSQL of Debian's packages (`/usr/lib/postgresql/<major>/bin`). */
export function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] === undefined ? null : join(root, majors[0], 'bin');
}

export interface ReplicatedCluster {
  primaryUrl(database: string): string;
  replicaUrl(database: string): string;
  /** Runs SQL on the primary's `postgres` database (CREATE DATABASE, ...). */
  primary(sql: string): Promise<void>;
  /** Stops applying WAL on the replica (it keeps receiving it): the replica lags from now on. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** Waits until the replica has replayed everything the primary has written so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startReplicatedCluster(): Promise<ReplicatedCluster> {
  const bin = postgresBin();
  if (bin === null) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
  const asRoot = process.getuid?.() === 0;
  const as = (command: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args])
      : run(join(bin, command), args);
  const dir = mkdtempSync(join(tmpdir(), 'pg-replicated-'));
  chmodSync(dir, 0o777);
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  const options = (port: number) => `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const pgCtl = (dataDir: string, action: string, port: number) =>
    as('pg_ctl', ['-D', dataDir, '-l', `${dataDir}.log`, '-w', '-t', '30', '-o', options(port), action]);

  await as('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  await pgCtl(primaryDir, 'start', primaryPort);
  await as('pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primaryPort),
    '-U',
    'postgres',
    '-D',
    replicaDir,
    '-R',
    '-X',
    'stream',
  ]);
  await pgCtl(replicaDir, 'start', replicaPort);

  const url = (port: number, database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const query = async <T extends pg.QueryResultRow>(port: number, sql: string) => {
    const client = new pg.Client({ connectionString: url(port, 'postgres') });
    await client.connect();
    try {
      return (await client.query<T>(sql)).rows;
    } finally {
      await client.end();
    }
  };
  let replicaRunning = true;

  return {
    primaryUrl: (database) => url(primaryPort, database),
    replicaUrl: (database) => url(replicaPort, database),
    primary: async (sql) => {
      await query(primaryPort, sql);
    },
    pauseReplay: async () => {
      await query(replicaPort, 'SELECT pg_wal_replay_pause()');
    },
    resumeReplay: async () => {
      await query(replicaPort, 'SELECT pg_wal_replay_resume()');
    },
    stopReplica: async () => {
      await pgCtl(replicaDir, 'stop', replicaPort);
      replicaRunning = false;
    },
    startReplica: async () => {
      await pgCtl(replicaDir, 'start', replicaPort);
      replicaRunning = true;
    },
    caughtUp: async (timeoutMs = 10_000) => {
      const [{ lsn } = { lsn: '0/0' }] = await query<{ lsn: string }>(
        primaryPort,
        'SELECT pg_current_wal_insert_lsn()::text AS lsn',
      );
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [row] = await query<{ done: boolean }>(
          replicaPort,
          `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`,
        );
        if (row?.done) return;
        if (Date.now() > deadline)
          throw new Error(`the replica did not replay up to ${lsn} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stop: async () => {
      if (replicaRunning) await pgCtl(replicaDir, 'stop', replicaPort).catch(() => undefined);
      await as('pg_ctl', ['-D', primaryDir, '-w', '-m', 'fast', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
