/**
 * `npm run db:dump-schema`: writes db/schema.sql, the PostgreSQL schema that db/migrations produce,
 * so a reviewer sees the whole schema (and its diff) without running anything.
 *
 * It creates a temporary database on the server of `DATABASE_URL` (default: the local server),
 * migrates it with the service's own migrator, runs `pg_dump --schema-only --no-owner --no-privileges`,
 * normalises the output so it is identical across runs and pg_dump patch releases, and drops the
 * temporary database.
 *
 * `npm run db:dump-schema -- --check` writes nothing: it exits 1 when db/schema.sql differs from a
 * fresh dump (CI runs this, so a migration cannot land without its schema.sql).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { describeError } from './lib/describe-error.ts';

const SCHEMA_FILE = fileURLToPath(new URL('../db/schema.sql', import.meta.url));
const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Removes what changes between runs without changing the schema: the server and pg_dump versions,
 * and the `\restrict <random key>` / `\unrestrict <random key>` guards that pg_dump prints since
 * 17.6 / 16.10 / 15.14. Collapses the blank lines they leave and ends with exactly one newline.
 */
function normaliseDump(dump: string): string {
  const lines = dump
    .replace(/\r\n/g, '\n')
    .split('\n')
    .filter(
      (line) =>
        !/^-- Dumped (from database|by pg_dump) version /.test(line) && !/^\\(un)?restrict(\s|$)/.test(line),
    );
  const text = lines.join('\n').replace(/\n{3,}/g, '\n\n');
  return `${text.trim()}\n`;
}

function databaseUrlFor(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

function pgDump(databaseUrl: string): string {
  // A password goes through the environment, not argv, so it never shows in `ps`.
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  const env = password ? { ...process.env, PGPASSWORD: password } : process.env;
  const result = spawnSync(
    'pg_dump',
    ['--schema-only', '--no-owner', '--no-privileges', '--no-password', '--dbname', url.toString()],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env },
  );
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'ENOENT'
        ? 'pg_dump not found on PATH: install the PostgreSQL client tools (same major version as the server or newer).'
        : `pg_dump could not run: ${result.error.message}`,
    );
  }
  if (result.status !== 0) {
    throw new Error(`pg_dump exited with ${result.status}: ${result.stderr.trim()}`);
  }
  return result.stdout;
}

/** Creates, migrates, dumps and drops a temporary database; returns the normalised dump. */
async function freshDump(serverUrl: string): Promise<string> {
  const name = `agency_schema_dump_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
  try {
    const databaseUrl = databaseUrlFor(serverUrl, name);
    const db = await openDatabase({ databaseUrl, dataDir: 'memory://', poolSize: 1 });
    try {
      await db.migrate();
    } finally {
      await db.close();
    }
    return normaliseDump(pgDump(databaseUrl));
  } finally {
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

/** A short unified diff for the --check failure, when `diff` is available. */
function showDiff(actual: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'schema-check-'));
  try {
    const fresh = join(dir, 'schema.fresh.sql');
    writeFileSync(fresh, actual);
    const result = spawnSync(
      'diff',
      ['-u', '--label', 'db/schema.sql (committed)', '--label', 'fresh dump', SCHEMA_FILE, fresh],
      {
        encoding: 'utf8',
      },
    );
    if (result.error || typeof result.stdout !== 'string') return '';
    const lines = result.stdout.split('\n');
    return lines.length > 80
      ? `${lines.slice(0, 80).join('\n')}\n... (${lines.length - 80} more lines)\n`
      : result.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const unknown = args.filter((arg) => arg !== '--check');
  if (unknown.length > 0) {
    process.stderr.write(`Unknown argument(s): ${unknown.join(' ')}\nUsage: dump-schema.ts [--check]\n`);
    return 2;
  }
  const check = args.includes('--check');
  const serverUrl = process.env.DATABASE_URL?.trim() || DEFAULT_SERVER_URL;
  try {
    new URL(serverUrl);
  } catch {
    process.stderr.write('DATABASE_URL must be a postgres:// URL\n');
    return 1;
  }

  const dump = await freshDump(serverUrl);
  const shownPath = relative(process.cwd(), SCHEMA_FILE) || SCHEMA_FILE;

  if (!check) {
    const before = existsSync(SCHEMA_FILE) ? readFileSync(SCHEMA_FILE, 'utf8') : undefined;
    writeFileSync(SCHEMA_FILE, dump);
    process.stdout.write(
      before === dump
        ? `${shownPath} is already up to date.\n`
        : `Wrote ${shownPath} (${dump.length} bytes).\n`,
    );
    return 0;
  }

  if (!existsSync(SCHEMA_FILE)) {
    process.stderr.write(`${shownPath} is missing. Run \`npm run db:dump-schema\` and commit the result.\n`);
    return 1;
  }
  const committed = readFileSync(SCHEMA_FILE, 'utf8');
  if (committed === dump) {
    process.stdout.write(`${shownPath} matches the schema that db/migrations produce.\n`);
    return 0;
  }
  process.stderr.write(
    `${shownPath} is out of date: it differs from a fresh dump of a database migrated from db/migrations.\n` +
      'Run `npm run db:dump-schema` and commit db/schema.sql together with the migration.\n\n' +
      showDiff(dump),
  );
  return 1;
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`db:dump-schema failed: ${describeError(error)}\n`);
  process.exitCode = 1;
}
