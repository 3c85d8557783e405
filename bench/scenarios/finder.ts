/**
 * Scenario `finder`: POST /v1/finder of the service on PostgreSQL with 100 organizations x 1,000
 * properties (100,000), publishable keys and organizations with raised write limits. Every request
 * scores the agency's published stock, saves a new contact (a phone number never sent before), the
 * search, an analytics event and `finder.submitted`. No baseline: the figure asked for is the p99.
 * See bench/README.md.
 */
import type { AutocannonRequest } from 'autocannon';
import { request } from '../lib/admin-client.ts';
import { requireDatabaseUrl } from '../lib/bench-database.ts';
import { citiesOf, SALE_PRICE_MIDDLE } from '../lib/portal-data.ts';
import { KEY_LIMIT_PER_MINUTE, startPortalStack } from '../lib/portal-stack.ts';
import { machine, median, writeResult } from '../lib/report.ts';
import {
  failuresOf,
  highestRateUnder,
  mediansOf,
  pairedRounds,
  rateRuns,
  ratesTable,
  runsTable,
} from '../lib/rounds.ts';
import { DATABASE_USAGE, LOAD_USAGE, parseScaleArguments, type Scenario } from '../lib/scenario.ts';

const TARGET_P99_MS = 100;
const DEFAULTS = { orgs: 100, perOrg: 1000, keys: 16 };
/** The admin API's maximum: organization-wide writes per minute (the plan's 1,200 would throttle). */
const WRITE_LIMIT_PER_MINUTE = 100_000;

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- finder [options]

POST /v1/finder of the service (child process) on a fresh PostgreSQL database (created on DATABASE_URL's
server, dropped at the end): every request a new person, criteria varied per agency.
${LOAD_USAGE}
  --orgs N         organizations (default ${DEFAULTS.orgs})
  --per-org N      properties per organization (default ${DEFAULTS.perOrg})
  --keys N         publishable keys, one per organization from the first (default ${DEFAULTS.keys}),
                   each limited to ${KEY_LIMIT_PER_MINUTE}/min (and as many writes)
${DATABASE_USAGE}`;

/** Four searches a visitor might run on agency `orgIndex`'s portal. */
function criteria(orgIndex: number): Array<Record<string, unknown>> {
  const [home = '', second = ''] = citiesOf(orgIndex);
  return [
    {
      transactionType: 'SALE',
      propertyType: 'APARTMENT',
      city: home,
      budgetMax: SALE_PRICE_MIDDLE,
      minBedrooms: 2,
      amenities: ['elevator', 'terrace'],
    },
    { transactionType: 'RENT', city: second, budgetMax: 1200, minBedrooms: 1 },
    {
      transactionType: 'SALE',
      propertyType: 'HOUSE',
      budgetMin: 200_000,
      budgetMax: 500_000,
      amenities: ['garden', 'pool'],
    },
    {
      transactionType: 'RENT',
      propertyType: 'APARTMENT',
      city: home,
      neighborhood: 'Centro',
      budgetMax: 1500,
      amenities: ['furnished'],
    },
  ];
}

let sent = 0;
/** A Spanish mobile number no request of this process has used yet: each request is a new person. */
const nextPhone = () => `+346${String(10_000_000 + (sent++ % 90_000_000)).slice(-8)}`;

async function run(args: string[]): Promise<void> {
  const { load, help, scale } = parseScaleArguments(args, DEFAULTS);
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const serverUrl = requireDatabaseUrl('finder');
  const { orgs, perOrg, keys: keyCount } = scale;
  const startedAt = new Date();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(
    `finder: ${orgs} organizations x ${perOrg} properties, ${load.rounds} rounds, -c ${load.connections} ` +
      `-d ${load.durationS} (+${load.warmupS} s warm-up), ${keyCount} publishable keys`,
  );
  const stack = await startPortalStack({
    serverUrl,
    database: scale.database,
    organizations: orgs,
    perOrg,
    keys: keyCount,
    keyOrganizations: keyCount,
    writeLimitPerMinute: KEY_LIMIT_PER_MINUTE,
    organizationWriteLimitPerMinute: WRITE_LIMIT_PER_MINUTE,
    log,
  });
  try {
    for (const organization of stack.organizations.slice(0, keyCount)) {
      if (organization.effectiveWriteLimitPerMinute !== WRITE_LIMIT_PER_MINUTE)
        throw new Error(`organization write limit not raised: ${organization.effectiveWriteLimitPerMinute}`);
    }
    const bodies: Array<{ key: string; body: Record<string, unknown> }> = [];
    for (let variant = 0; variant < 4; variant++) {
      for (const key of stack.keys) {
        const orgIndex = stack.organizations.findIndex((o) => o.id === key.organizationId);
        const body = criteria(orgIndex)[variant] ?? {};
        bodies.push({
          key: key.key,
          body: { ...body, firstName: 'Visitante', subscribedToAlerts: variant % 2 === 0 },
        });
      }
    }
    const send = (entry: (typeof bodies)[number]): AutocannonRequest => ({
      method: 'POST',
      path: '/v1/finder',
      headers: { 'x-api-key': entry.key, 'content-type': 'application/json' },
      body: JSON.stringify({ ...entry.body, phone: nextPhone() }),
    });
    // Each search once before the load: it must answer 201 and find something to score.
    const totals: number[] = [];
    for (const entry of bodies) {
      const req = send(entry);
      const answer = await request<{ data: { total: number; properties: unknown[] } }>(
        `${stack.service.url}/v1/finder`,
        { method: 'POST', headers: req.headers, body: req.body as string },
        201,
      );
      if (answer.body.data.properties.length === 0)
        throw new Error(`no listing scored for ${req.body as string}`);
      totals.push(answer.body.data.total);
    }
    log(
      `checked: ${bodies.length} searches answer 201 with listings; median total (score >= 60): ${median(totals)}`,
    );

    const requests: AutocannonRequest[] = bodies.map((entry) => ({
      method: 'POST',
      path: '/v1/finder',
      headers: { 'x-api-key': entry.key, 'content-type': 'application/json' },
      body: '{}',
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ ...entry.body, phone: nextPhone() }) }),
    }));
    const targets = [{ name: 'service', url: stack.service.url, pid: stack.service.pid, requests }];
    const runs = await pairedRounds(targets, load, log);
    const medians = mediansOf(runs, 'service');
    // No baseline here: the shares of --rates are of the service's own median maximum.
    const rates = await rateRuns(targets, load, medians.reqPerSec, log);
    const p99HoldsUpTo = highestRateUnder(rates, 'service', TARGET_P99_MS);
    const failures = failuresOf([...runs, ...rates], 'service');
    const meets = medians.p99Ms < TARGET_P99_MS;
    log(
      `\n${runsTable(runs, ['service'])}\n\n` +
        `finder p99 (median of rounds): ${medians.p99Ms.toFixed(2)} ms at ${load.connections} connections; ` +
        `target < ${TARGET_P99_MS} ms: ${meets ? 'meets' : 'ABOVE'}\n` +
        `responses not 2xx: ${failures.non2xx}, socket errors/timeouts: ${failures.errors}; ` +
        `${sent} finder requests sent (each a new contact)`,
    );
    if (rates.length > 0)
      log(
        `\nfixed offered rates, ${load.connections} connections:\n${ratesTable(rates, TARGET_P99_MS)}\n` +
          `finder p99 < ${TARGET_P99_MS} ms up to ${p99HoldsUpTo ?? 'none of the'} req/s offered`,
      );
    const file = writeResult('finder', startedAt, {
      scenario: 'finder',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- finder ${args.join(' ')}`.trim(),
      machine: machine(),
      stock: stack.stock,
      settings: {
        ...load,
        organizations: orgs,
        perOrg,
        keys: keyCount,
        keyLimitPerMinute: KEY_LIMIT_PER_MINUTE,
        organizationWriteLimitPerMinute: WRITE_LIMIT_PER_MINUTE,
        searches: bodies.map((b) => b.body),
      },
      service: { pid: stack.service.pid, ...stack.service.info },
      totals,
      runs,
      medians,
      rates,
      p99HoldsUpTo,
      target: TARGET_P99_MS,
      meetsTarget: meets,
      failures,
    });
    log(`written ${file}`);
    if (failures.non2xx > 0 || failures.errors > 0) process.exitCode = 1;
  } finally {
    await stack.stop();
  }
}

export const scenario: Scenario = {
  description: 'POST /v1/finder on PostgreSQL at 100k properties (100 x 1,000), p99',
  run,
};
