/**
 * `npm run db:migrate`: applies the pending migrations of db/migrations to the configured database
 * (`DATABASE_URL`, or the embedded PGlite in `DATA_DIR`) and reports what it applied. The server
 * migrates at start too; this lets an operator migrate once before a deploy of several processes.
 */
import { loadConfigOrExit } from '../src/config.ts';
import { databaseOptions, openDatabase } from '../src/db/database.ts';
import { describeError } from './lib/describe-error.ts';

/** The URL without its password, for printing. */
function redact(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  if (url.password) url.password = '***';
  return url.toString();
}

const config = loadConfigOrExit(process.env);
const target = config.databaseUrl
  ? `PostgreSQL ${redact(config.databaseUrl)}`
  : `embedded PGlite in ${config.dataDir}`;
process.stdout.write(`Database: ${target}\n`);
try {
  const started = performance.now();
  const db = await openDatabase({ ...databaseOptions(config), poolSize: 1 });
  let applied: string[];
  try {
    applied = await db.migrate();
  } finally {
    await db.close();
  }
  const elapsed = Math.round(performance.now() - started);
  process.stdout.write(
    applied.length === 0
      ? `Already up to date (${elapsed} ms).\n`
      : `Applied ${applied.length} migration(s) in ${elapsed} ms:\n${applied.map((tag) => `  ${tag}\n`).join('')}`,
  );
} catch (error) {
  process.stderr.write(`db:migrate failed: ${describeError(error)}\n`);
  process.exit(1);
}
