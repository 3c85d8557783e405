/**
 * Scenario `property-detail`: GET /v1/properties/{id} (publishable keys, many listings) of the
 * service on PostgreSQL against a bare Fastify route on pg with its own hand-written statement and
 * mapping (bench/lib/detail-sql-server.ts; with `--baseline self`, the service's own
 * getPortalProperty on a plain pool: bench/lib/detail-bare-server.ts), in paired rounds, then at
 * fixed offered rates. Fresh 100 x 1,000 portal stock, or a generated database (--database). See
 * bench/README.md.
 */
import type { AutocannonRequest } from 'autocannon';
import { request } from '../lib/admin-client.ts';
import { measureAgainstBaseline } from '../lib/against-baseline.ts';
import { requireDatabaseUrl } from '../lib/bench-database.ts';
import { startChild, type ChildServer } from '../lib/child.ts';
import type { DetailBareServerOptions } from '../lib/detail-bare-server.ts';
import {
  entry,
  KEY_LIMIT_PER_MINUTE,
  POOL_SIZE,
  publishedListings,
  scaleStackOptions,
  startPortalStack,
} from '../lib/portal-stack.ts';
import { machine, writeResult } from '../lib/report.ts';
import {
  BASELINE_USAGE,
  baselineKind,
  DATABASE_USAGE,
  LOAD_USAGE,
  parseScaleArguments,
  type Scenario,
} from '../lib/scenario.ts';
import { BASELINE_LABELS, baselineVerdict } from '../lib/verdict.ts';

const TARGET_P99_MS = 50;
const DEFAULTS = { orgs: 100, perOrg: 1000, keys: 16 };
/** Published listings asked for per key: 16 keys x 32 = 512 distinct requests. */
const LISTINGS_PER_KEY = 32;

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- property-detail [options]

GET /v1/properties/{id} of the service (child process) vs a bare Fastify route on pg (child process),
on a fresh PostgreSQL database (dropped at the end).
${LOAD_USAGE}
${BASELINE_USAGE}
  --orgs N         organizations (default ${DEFAULTS.orgs})
  --per-org N      properties per organization (default ${DEFAULTS.perOrg})
  --keys N         publishable keys, one per organization from the first (default ${DEFAULTS.keys}),
                   each limited to ${KEY_LIMIT_PER_MINUTE}/min; ${LISTINGS_PER_KEY} published listings asked for per key
${DATABASE_USAGE}
With --check: every request (and each again with lang=en) answers byte-identical bodies from both servers,
on the tiny stock.`;

async function run(args: string[]): Promise<void> {
  const { load, help, scale, text } = parseScaleArguments(args, DEFAULTS, { baseline: { type: 'string' } });
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const kind = baselineKind(text('baseline'));
  const serverUrl = requireDatabaseUrl('property-detail');
  const startedAt = new Date();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(
    `property-detail${load.check ? ' --check' : ''}: ${scale.database ?? `${scale.orgs} organizations x ${scale.perOrg} properties`}, ` +
      (load.check
        ? ''
        : `${load.rounds} x (baseline, service), -c ${load.connections} -d ${load.durationS} (+${load.warmupS} s warm-up), `) +
      `${scale.keys} publishable keys; baseline: ${BASELINE_LABELS[kind]}`,
  );
  const stack = await startPortalStack({
    ...scaleStackOptions(serverUrl, scale, log),
  });
  let baseline: ChildServer | null = null;
  try {
    const listings = await publishedListings(
      stack.database.url,
      stack.keys.map((k) => k.organizationId),
      LISTINGS_PER_KEY,
    );
    const requests: Array<AutocannonRequest & { path: string; headers: Record<string, string> }> = [];
    for (let j = 0; j < LISTINGS_PER_KEY; j++) {
      for (const key of stack.keys) {
        const id = listings.get(key.organizationId)?.[j];
        if (id !== undefined)
          requests.push({ method: 'GET', path: `/v1/properties/${id}`, headers: { 'x-api-key': key.key } });
      }
    }
    baseline = await startChild<DetailBareServerOptions>({
      name: 'baseline',
      entry: entry(kind === 'sql' ? 'detail-sql-server.ts' : 'detail-bare-server.ts'),
      options: {
        databaseUrl: stack.database.url,
        poolSize: POOL_SIZE,
        keyOrganizations: Object.fromEntries(stack.keys.map((k) => [k.key, k.organizationId])),
      },
    });
    if (requests.length === 0) throw new Error('no published listing to ask for');
    // Then the same listings in the organizations' other language (not in the load): the English
    // translation where a listing has one (the "self" baseline's function is given no language).
    const translated = kind === 'sql' ? requests.map((r) => ({ ...r, path: `${r.path}?lang=en` })) : [];
    let sample: unknown = null;
    for (const r of [...requests, ...translated]) {
      const fromService = await request<unknown>(
        `${stack.service.url}${r.path}`,
        { headers: r.headers },
        200,
      );
      const fromBaseline = await request<unknown>(`${baseline.url}${r.path}`, { headers: r.headers }, 200);
      if (fromService.text !== fromBaseline.text)
        throw new Error(`baseline body differs for ${r.path}:\n${fromBaseline.text}\n${fromService.text}`);
      sample ??= fromService.body;
    }
    log(
      `checked: ${requests.length} distinct listings${translated.length > 0 ? ' (and again with lang=en)' : ''} ` +
        `answer 200 with byte-identical bodies from the service and the baseline (${BASELINE_LABELS[kind]})`,
    );
    if (load.check) return;

    const measured = await measureAgainstBaseline(
      { name: 'baseline', url: baseline.url, pid: baseline.pid, requests },
      { name: 'service', url: stack.service.url, pid: stack.service.pid, requests },
      load,
      TARGET_P99_MS,
      log,
      BASELINE_LABELS[kind],
    );
    const file = writeResult('property-detail', startedAt, {
      scenario: 'property-detail',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- property-detail ${args.join(' ')}`.trim(),
      machine: machine(),
      stock: stack.stock,
      settings: { ...load, keys: scale.keys, poolSize: POOL_SIZE, requests: requests.length },
      service: { pid: stack.service.pid, ...stack.service.info },
      baseline: { kind, label: BASELINE_LABELS[kind], pid: baseline.pid, ...baseline.info },
      summary: baselineVerdict({
        baseline: BASELINE_LABELS[kind],
        pairedRatio: measured.pairedRatio,
        rates: measured.rates,
        p99Ms: TARGET_P99_MS,
      }),
      sample,
      ...measured,
    });
    log(`written ${file}`);
    if (measured.serviceFailures.non2xx > 0 || measured.serviceFailures.errors > 0) process.exitCode = 1;
  } finally {
    await baseline?.stop();
    await stack.stop();
  }
}

export const scenario: Scenario = {
  description:
    'GET /v1/properties/{id} on PostgreSQL vs a hand-written SQL route (--baseline self: the service code)',
  run,
  check: ['--check'],
};
