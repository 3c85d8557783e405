/**
 * `npm run bench -- generate --database NAME ...`: makes a named PostgreSQL database holding the
 * scale data set (bench/lib/scale-data.ts) that other scenarios reuse with `--database NAME`. Kept
 * after the run (drop it with `dropdb NAME`); dropped again when the load fails midway.
 */
import pg from 'pg';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { requireDatabaseUrl, withDatabase } from '../lib/bench-database.ts';
import { startChild, type ChildServer } from '../lib/child.ts';
import { entry } from '../lib/portal-stack.ts';
import { machine, table, writeResult } from '../lib/report.ts';
import {
  generateScaleData,
  openGeneratedDatabase,
  type IndexMode,
  type ScaleSize,
} from '../lib/scale-data.ts';
import { CHECK_USAGE, positive, UsageError, type Scenario } from '../lib/scenario.ts';
import type { ServiceServerOptions } from '../lib/service-server.ts';

const DEFAULTS = { orgs: 1000, properties: 1_000_000, contacts: 1_000_000, events: 10_000_000 };
const DEFAULT_INDEXES: IndexMode = 'after';
/** `--check`: a tiny data set in a database of this run, verified (generateScaleData) and dropped. */
const CHECK = { orgs: 2, properties: 60, contacts: 60, events: 200 };

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- generate --database NAME [options]

Creates database NAME on DATABASE_URL's server, migrates it through the service, creates the
organizations through the admin API and streams agents, properties, contacts and analytics events
into it with COPY; then the daily analytics aggregates, indexes, VACUUM (ANALYZE). NAME is kept for
other scenarios' --database NAME (drop it with: dropdb NAME).
  --database NAME  the database to create (letters, digits, _)
  --orgs N         organizations (default ${DEFAULTS.orgs.toLocaleString('en')})
  --properties N   properties in all, the same number per organization (default ${DEFAULTS.properties.toLocaleString('en')})
  --contacts N     contacts in all (default ${DEFAULTS.contacts.toLocaleString('en')})
  --events N       portal analytics events in all (default ${DEFAULTS.events.toLocaleString('en')})
  --indexes MODE   after: drop the bulk tables' secondary indexes, COPY, rebuild them, check foreign
                   keys once (default); during: keep indexes and foreign-key triggers live
  --replace        drop NAME first if it exists
${CHECK_USAGE}
                   (${CHECK.orgs} organizations, ${CHECK.properties} properties, ${CHECK.contacts} contacts, ${CHECK.events} events
                   in a database of this run, read back, then dropped; --database optional)`;

function perOrg(name: string, total: number, orgs: number): number {
  if (total % orgs !== 0)
    throw new UsageError(
      `--${name} ${total} is not a multiple of --orgs ${orgs} (the same number per organization)`,
    );
  return total / orgs;
}

async function run(args: string[]): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: {
        database: { type: 'string' },
        orgs: { type: 'string' },
        properties: { type: 'string' },
        contacts: { type: 'string' },
        events: { type: 'string' },
        indexes: { type: 'string' },
        replace: { type: 'boolean' },
        check: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }) as { values: Record<string, string | boolean | undefined> });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (--help lists the options)`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const check = values.check === true;
  const defaults = check ? CHECK : DEFAULTS;
  const name = text('database') ?? (check ? `agency_bench_generate_check_${process.pid}` : undefined);
  if (name === undefined || !/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new UsageError('--database NAME is required: lowercase letters, digits and _ (--help)');
  const indexes = (text('indexes') ?? DEFAULT_INDEXES) as IndexMode;
  if (indexes !== 'after' && indexes !== 'during') throw new UsageError('--indexes is after or during');
  const orgs = positive('orgs', text('orgs'), defaults.orgs, 1);
  const size: ScaleSize = {
    orgs,
    propertiesPerOrg: perOrg(
      'properties',
      positive('properties', text('properties'), defaults.properties, 0),
      orgs,
    ),
    contactsPerOrg: perOrg('contacts', positive('contacts', text('contacts'), defaults.contacts, 0), orgs),
    eventsPerOrg: perOrg('events', positive('events', text('events'), defaults.events, 0), orgs),
  };
  const serverUrl = requireDatabaseUrl('generate');
  const startedAt = new Date();
  const log = (line: string) => process.stdout.write(`${line}\n`);

  const maintenance = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await maintenance.connect();
  let service: ChildServer | null = null;
  let created = false;
  let finished = false;
  try {
    const { rows } = await maintenance.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rows.length > 0) {
      if (values.replace !== true)
        throw new UsageError(
          `database ${name} exists: pass --replace to drop it first, or choose another name`,
        );
      await maintenance.query(`DROP DATABASE ${name} WITH (FORCE)`);
    }
    await maintenance.query(`CREATE DATABASE ${name}`);
    created = true;
    const url = withDatabase(serverUrl, name);
    log(
      `generate ${name}: ${size.orgs.toLocaleString('en')} organizations x (${size.propertiesPerOrg.toLocaleString('en')} properties, ` +
        `${size.contactsPerOrg.toLocaleString('en')} contacts, ${size.eventsPerOrg.toLocaleString('en')} analytics events), indexes ${indexes}`,
    );
    service = await startChild<ServiceServerOptions>({
      name: 'service',
      entry: entry('service-server.ts'),
      options: { env: { DATABASE_URL: url } },
    });
    log('  migrated through the service');
    const summary = await generateScaleData({
      databaseUrl: url,
      serviceUrl: service.url,
      size,
      indexes,
      log,
    });
    await service.stop();
    service = null;
    if (check) {
      // What a scenario's --database reads: the manifest with the size and the finished summary.
      const generated = await openGeneratedDatabase(serverUrl, name);
      if (!isDeepStrictEqual(generated.size, size) || generated.organizations.length !== size.orgs)
        throw new Error(
          `the manifest of ${name} says ${JSON.stringify(generated.size)}, not ${JSON.stringify(size)}`,
        );
      log(
        `checked: ${name} generated (${size.orgs} organizations x ${size.propertiesPerOrg} properties, ${size.contactsPerOrg} contacts, ` +
          `${size.eventsPerOrg} events; indexes ${summary.indexes}), its rows and derived columns verified, its manifest readable; dropped`,
      );
      return;
    }
    finished = true;
    const bulk = summary.phases.filter((p) => p.phase.includes('COPY'));
    const copied = bulk.reduce((sum, p) => sum + (p.rows ?? 0), 0);
    const copySeconds = bulk.reduce((sum, p) => sum + p.seconds, 0);
    log(
      `\n${table([
        ['phase', 'rows', 'seconds', 'rows/s'],
        ...summary.phases.map((p) => [p.phase, p.rows ?? '', p.seconds.toFixed(1), p.rowsPerSecond ?? '']),
        ['COPY, all tables', copied, copySeconds.toFixed(1), Math.round(copied / copySeconds)],
        ['total', '', summary.totalSeconds.toFixed(1), ''],
      ])}\n\n` +
        `total ${(summary.totalSeconds / 60).toFixed(1)} minutes; on disk: ${Object.entries(
          summary.tableBytes,
        )
          .map(([t, bytes]) => `${t} ${(bytes / 2 ** 20).toFixed(0)} MiB`)
          .join(', ')}\n` +
        `reuse it: npm run bench -- <scenario> --database ${name}   (drop it: dropdb ${name})`,
    );
    const file = writeResult('generate', startedAt, {
      scenario: 'generate',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- generate ${args.join(' ')}`.trim(),
      machine: machine(),
      database: name,
      ...summary,
    });
    log(`written ${file}`);
  } finally {
    await service?.stop();
    if (created && !finished)
      await maintenance.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await maintenance.end();
  }
}

export const scenario: Scenario = {
  description: 'makes a named database of the scale data set with COPY (1,000 orgs, 1M properties, ...)',
  run,
  check: ['--check'],
};
