/**
 * A PostgreSQL and a Redis of a test's own, for the fault tests (test/reliability/): they stop,
 * restart, freeze and kill them, which must never happen to the machine's shared services on 5432
 * and 6379 (other people's tests run there). Real servers, not mocks: PostgreSQL from the installed
 * binaries (initdb into a temporary folder, pg_ctl on a free port, its socket in that folder), Redis
 * as a child process without persistence.
 *
 * PostgreSQL refuses to run as root, so when this process is root the server commands run as the
 * `postgres` system user (`runuser -u postgres --`) and the folder is handed to that user.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Whether this machine can run the fault tests' private PostgreSQL (the binaries are installed). */
export function postgresBinDir(): string | null {
  const given = process.env.PG_BIN;
  if (given) return existsSync(join(given, 'initdb')) ? given : null;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const dir = join(root, version, 'bin');
    if (existsSync(join(dir, 'initdb'))) return dir;
  }
  return null;
}

/** A TCP port nobody listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not come up within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const isRoot = process.getuid?.() === 0;

/** Runs a server command as this user, or as `postgres` when this process is root. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return isRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/** Stops every private server left behind if a test file dies before its own cleanup. */
const leftovers = new Set<() => void>();
process.once('exit', () => leftovers.forEach((cleanup) => cleanup()));

export type StopMode = 'fast' | 'immediate';

/**
 * A PostgreSQL cluster in a temporary folder. `stop('fast')` is an orderly shutdown (sessions are
 * terminated with 57P01), `stop('immediate')` a crash (recovery runs at the next start);
 * `freeze()` stops every server process (SIGSTOP), as a host that no longer answers would.
 */
export class PrivatePostgres {
  private constructor(
    readonly bin: string,
    readonly dir: string,
    readonly port: number,
  ) {}

  static async create(): Promise<PrivatePostgres> {
    const bin = postgresBinDir();
    if (!bin) throw new Error('PostgreSQL server binaries not found (set PG_BIN to the folder of initdb)');
    const dir = mkdtempSync(join(tmpdir(), 'agency-faults-pg-'));
    if (isRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(dir, uid, gid);
    }
    const server = new PrivatePostgres(bin, dir, await freePort());
    leftovers.add(server.cleanupSync);
    await run(
      ...asServerUser(join(bin, 'initdb'), [
        '-D',
        server.dataDir,
        '-A',
        'trust',
        '-U',
        'postgres',
        '--no-sync',
        '-E',
        'UTF8',
        '--locale=C',
      ]),
    );
    await server.start();
    return server;
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    // No fsync: the tests crash the server, not the machine, so the OS keeps the writes. Commits are
    // still written to the OS before they are acknowledged (synchronous_commit on): a crash of the
    // server loses no acknowledged write, which the idempotency fault tests count on.
    const options = [
      `-p ${this.port}`,
      `-k ${this.dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=on',
      '-c full_page_writes=off',
      '-c max_connections=60',
      '-c shared_buffers=32MB',
    ].join(' ');
    await run(
      ...asServerUser(join(this.bin, 'pg_ctl'), [
        '-D',
        this.dataDir,
        '-l',
        join(this.dir, 'server.log'),
        '-o',
        options,
        '-w',
        '-t',
        '60',
        'start',
      ]),
    );
    await waitUntil('private PostgreSQL', async () => {
      const client = new pg.Client({ connectionString: this.url(), connectionTimeoutMillis: 1_000 });
      await client.connect();
      await client.end();
      return true;
    });
  }

  async stop(mode: StopMode = 'fast'): Promise<void> {
    await run(...asServerUser(join(this.bin, 'pg_ctl'), ['-D', this.dataDir, '-m', mode, '-w', 'stop']));
  }

  async restart(mode: StopMode = 'fast'): Promise<void> {
    await this.stop(mode);
    await this.start();
  }

  /** Process ids of the postmaster (first line of postmaster.pid) and of its children. */
  private async serverPids(): Promise<number[]> {
    const pidFile = join(this.dataDir, 'postmaster.pid');
    if (!existsSync(pidFile)) return [];
    const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    const children = await run('pgrep', ['-P', String(postmaster)]).catch(() => ({ stdout: '' }));
    return [postmaster, ...children.stdout.split('\n').filter(Boolean).map(Number)];
  }

  /** SIGSTOP to every server process: connections stay open, nothing answers. */
  async freeze(): Promise<void> {
    for (const pid of await this.serverPids()) process.kill(pid, 'SIGSTOP');
  }

  async thaw(): Promise<void> {
    for (const pid of await this.serverPids()) process.kill(pid, 'SIGCONT');
  }

  /** Runs SQL as the superuser on a connection of its own. */
  async query<T = Record<string, unknown>>(text: string, database = 'postgres'): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.url(database) });
    await client.connect();
    try {
      return (await client.query(text)).rows as T[];
    } finally {
      await client.end();
    }
  }

  async createDatabase(name: string): Promise<string> {
    await this.query(`CREATE DATABASE ${name}`);
    return this.url(name);
  }

  private readonly cleanupSync = () => {
    try {
      const [command, args] = asServerUser(join(this.bin, 'pg_ctl'), [
        '-D',
        this.dataDir,
        '-m',
        'immediate',
        'stop',
      ]);
      execFileSync(command, args, { stdio: 'ignore' });
    } catch {
      // Not running.
    }
    rmSync(this.dir, { recursive: true, force: true });
  };

  /** Stops the server (a frozen one too) and deletes its folder. */
  async destroy(): Promise<void> {
    await this.thaw().catch(() => undefined);
    leftovers.delete(this.cleanupSync);
    this.cleanupSync();
  }
}

/** A `redis-server` child process on a free port, no persistence: `stop()` loses its data. */
export class PrivateRedis {
  private child: ChildProcess | null = null;

  private constructor(readonly port: number) {}

  static async create(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    leftovers.add(redis.killSync);
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it again on the same port. */
  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    this.child = child;
    await waitUntil('private Redis', () => this.ping());
  }

  /** SIGKILL: the server vanishes without a word, as a crashed or partitioned Redis does. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** True when the server answers PING. */
  ping(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port: this.port });
      let answer = '';
      socket.setTimeout(1_000, () => socket.destroy());
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (chunk) => {
        answer += chunk.toString();
        if (answer.includes('\r\n')) socket.end();
      });
      socket.on('close', () => resolve(answer.startsWith('+PONG')));
      socket.on('error', () => resolve(false));
    });
  }

  private readonly killSync = () => {
    this.child?.kill('SIGKILL');
  };

  async destroy(): Promise<void> {
    leftovers.delete(this.killSync);
    await this.stop();
  }
}
