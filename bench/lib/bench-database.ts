import pg from 'pg';
import { UsageError } from './scenario.ts';

/**
 * A throw-away PostgreSQL database for one benchmark run: created fresh (so no data leaks from one
 * run into the next) on the server DATABASE_URL names, with its credentials, and dropped at the end
 * (also after a failure or Ctrl-C: `drop` is idempotent and registered on SIGINT/SIGTERM).
 */
export interface BenchDatabase {
  name: string;
  /** DATABASE_URL with the database name replaced. */
  url: string;
  drop(): Promise<void>;
}

/** DATABASE_URL, or a UsageError saying why the scenario needs it. */
export function requireDatabaseUrl(scenario: string): string {
  const url = process.env.DATABASE_URL;
  if (!url) {
    throw new UsageError(
      `The ${scenario} scenario needs PostgreSQL: set DATABASE_URL to a server where this user may ` +
        'CREATE DATABASE (the scenario creates a fresh agency_bench_<pid>_<n> database there and drops it at the end), e.g.\n' +
        `  DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- ${scenario}`,
    );
  }
  return url;
}

let created = 0;
const live = new Set<BenchDatabase>();

async function dropAllAndExit(signal: NodeJS.Signals) {
  process.stderr.write(`\n${signal}: dropping ${[...live].map((d) => d.name).join(', ') || 'nothing'}\n`);
  await Promise.allSettled([...live].map((database) => database.drop()));
  process.exit(signal === 'SIGINT' ? 130 : 143);
}

/** `serverUrl` with its database name replaced by `name`. */
export function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Creates `agency_bench_<pid>_<n>` on DATABASE_URL's server (only the server and credentials of
 * DATABASE_URL are used; CREATE/DROP DATABASE run from its `postgres` maintenance database).
 */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `agency_bench_${process.pid}_${++created}`;
  const maintenanceUrl = withDatabase(serverUrl, 'postgres');
  const admin = new pg.Client({ connectionString: maintenanceUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  let dropped = false;
  const database: BenchDatabase = {
    name,
    url: withDatabase(serverUrl, name),
    async drop() {
      if (dropped) return;
      dropped = true;
      live.delete(database);
      const client = new pg.Client({ connectionString: maintenanceUrl });
      await client.connect();
      try {
        // WITH (FORCE): a child process killed mid-run may leave a connection behind.
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
  if (live.size === 0) {
    process.once('SIGINT', (signal) => void dropAllAndExit(signal));
    process.once('SIGTERM', (signal) => void dropAllAndExit(signal));
  }
  live.add(database);
  return database;
}
