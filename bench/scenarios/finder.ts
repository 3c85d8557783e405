/**
 * Scenario `finder`: POST /v1/finder of the service on PostgreSQL with 100 organizations x 1,000
 * properties (100,000), publishable keys and organizations with raised write limits. Every request
 * scores the agency's published stock, saves a new contact (a phone number never sent before), the
 * search, an analytics event and `finder.submitted`. Against a bare Fastify route doing the same
 * work in one hand-written statement (bench/lib/finder-sql-server.ts), in paired rounds, then at
 * fixed offered rates. See bench/README.md.
 */
import { isDeepStrictEqual } from 'node:util';
import type { AutocannonRequest } from 'autocannon';
import pg from 'pg';
import { request } from '../lib/admin-client.ts';
import { measureAgainstBaseline } from '../lib/against-baseline.ts';
import type { BarePgRouteOptions } from '../lib/bare-pg-route.ts';
import { requireDatabaseUrl } from '../lib/bench-database.ts';
import { startChild, type ChildServer } from '../lib/child.ts';
import { finderCounts, finderWrites } from '../lib/finder-writes.ts';
import { citiesOf, SALE_PRICE_MIDDLE } from '../lib/portal-data.ts';
import { entry, KEY_LIMIT_PER_MINUTE, POOL_SIZE, startPortalStack } from '../lib/portal-stack.ts';
import { machine, median, writeResult } from '../lib/report.ts';
import { DATABASE_USAGE, LOAD_USAGE, parseScaleArguments, type Scenario } from '../lib/scenario.ts';
import { BASELINE_LABELS, baselineVerdict } from '../lib/verdict.ts';

const TARGET_P99_MS = 100;
const DEFAULTS = { orgs: 100, perOrg: 1000, keys: 16 };
/** `--check`: two agencies, enough stock that each of the four searches scores a listing. */
const CHECK_SCALE = { orgs: 2, perOrg: 300, keys: 2 };
/** The admin API's maximum: organization-wide writes per minute (the plan's 1,200 would throttle). */
const WRITE_LIMIT_PER_MINUTE = 100_000;

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- finder [options]

POST /v1/finder of the service (child process) vs a bare Fastify route doing the same writes in one
hand-written statement (child process), on a fresh PostgreSQL database (created on DATABASE_URL's
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
  const { load, help, scale } = parseScaleArguments(args, DEFAULTS, {}, CHECK_SCALE);
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const serverUrl = requireDatabaseUrl('finder');
  const { orgs, perOrg, keys: keyCount } = scale;
  const startedAt = new Date();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(
    `finder: ${orgs} organizations x ${perOrg} properties, ` +
      (load.check
        ? 'check only'
        : `${load.rounds} rounds, -c ${load.connections} -d ${load.durationS} (+${load.warmupS} s warm-up)`) +
      `, ${keyCount} publishable keys`,
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
  let baseline: ChildServer | null = null;
  const db = new pg.Client({ connectionString: stack.database.url });
  await db.connect();
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
    baseline = await startChild<BarePgRouteOptions>({
      name: 'baseline',
      entry: entry('finder-sql-server.ts'),
      options: {
        databaseUrl: stack.database.url,
        poolSize: POOL_SIZE,
        keyOrganizations: Object.fromEntries(stack.keys.map((k) => [k.key, k.organizationId])),
      },
    });
    // Each search once to each server before the load: 201, listings scored, and the same answer but
    // for the ids each one makes (contact, search): same total, same listings in the same order, same
    // scores and breakdowns; and the same rows written (contact, search, events; finderWrites).
    const totals: number[] = [];
    const organizationIds = [...new Set(stack.keys.map((k) => k.organizationId))];
    const countsBefore = await finderCounts(db, organizationIds);
    let writesSample: unknown = null;
    for (const entry of bodies) {
      const answers: FinderAnswer[] = [];
      for (const url of [stack.service.url, baseline.url]) {
        const answer = await request<FinderAnswer>(
          `${url}/v1/finder`,
          {
            method: 'POST',
            headers: { 'x-api-key': entry.key, 'content-type': 'application/json' },
            body: JSON.stringify({ ...entry.body, phone: nextPhone() }),
          },
          201,
        );
        answers.push(answer.body);
      }
      const [fromService, fromBaseline] = answers as [FinderAnswer, FinderAnswer];
      if (fromService.data.properties.length === 0)
        throw new Error(`no listing scored for ${JSON.stringify(entry.body)}`);
      if (
        !/^ct_\w{22}$/.test(fromBaseline.data.contact.id) ||
        !/^fnd_\w{22}$/.test(fromBaseline.data.searchId)
      )
        throw new Error(`the baseline answered malformed ids: ${JSON.stringify(fromBaseline.data)}`);
      const withoutIds = ({ data }: FinderAnswer) => ({ total: data.total, properties: data.properties });
      if (!isDeepStrictEqual(withoutIds(fromService), withoutIds(fromBaseline)))
        throw new Error(
          `the baseline's answer differs for ${JSON.stringify(entry.body)}:\n` +
            `${JSON.stringify(withoutIds(fromBaseline))}\n${JSON.stringify(withoutIds(fromService))}`,
        );
      const organizationId = stack.keys.find((k) => k.key === entry.key)?.organizationId ?? '';
      const [serviceWrote, baselineWrote] = await Promise.all(
        answers.map(({ data }) => finderWrites(db, organizationId, data.contact.id, data.searchId)),
      );
      if (
        serviceWrote?.search.length !== 1 ||
        serviceWrote.events.length < 2 ||
        !isDeepStrictEqual(serviceWrote, baselineWrote)
      )
        throw new Error(
          `the baseline wrote other rows for ${JSON.stringify(entry.body)}:\n` +
            `${JSON.stringify(baselineWrote)}\n${JSON.stringify(serviceWrote)}`,
        );
      writesSample ??= serviceWrote;
      totals.push(fromService.data.total);
    }
    const countsAfter = await finderCounts(db, organizationIds);
    for (const counter of ['events', 'daily'] as const)
      if (countsAfter[counter] - countsBefore[counter] !== 2 * bodies.length)
        throw new Error(
          `FINDER_SUBMIT analytics ${counter}: ${2 * bodies.length} expected, got ${countsAfter[counter] - countsBefore[counter]}`,
        );
    log(
      `checked: ${bodies.length} searches answer 201 from the service and the baseline (${BASELINE_LABELS.sql}) ` +
        `with the same total, listings, order, scores and breakdowns, and write the same contact, search, events and analytics counts; median total (score >= 60): ${median(totals)}`,
    );
    if (load.check) return;

    const requests: AutocannonRequest[] = bodies.map((entry) => ({
      method: 'POST',
      path: '/v1/finder',
      headers: { 'x-api-key': entry.key, 'content-type': 'application/json' },
      body: '{}',
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ ...entry.body, phone: nextPhone() }) }),
    }));
    const measured = await measureAgainstBaseline(
      { name: 'baseline', url: baseline.url, pid: baseline.pid, requests },
      { name: 'service', url: stack.service.url, pid: stack.service.pid, requests },
      load,
      TARGET_P99_MS,
      log,
      BASELINE_LABELS.sql,
    );
    log(`${sent} finder requests sent (each a new contact)`);
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
        poolSize: POOL_SIZE,
        searches: bodies.map((b) => b.body),
      },
      service: { pid: stack.service.pid, ...stack.service.info },
      baseline: { kind: 'sql', label: BASELINE_LABELS.sql, pid: baseline.pid, ...baseline.info },
      summary: baselineVerdict({
        baseline: BASELINE_LABELS.sql,
        pairedRatio: measured.pairedRatio,
        rates: measured.rates,
        p99Ms: TARGET_P99_MS,
      }),
      totals,
      writesSample,
      sent,
      ...measured,
    });
    log(`written ${file}`);
    if (measured.serviceFailures.non2xx > 0 || measured.serviceFailures.errors > 0) process.exitCode = 1;
  } finally {
    await db.end();
    await baseline?.stop();
    await stack.stop();
  }
}

interface FinderAnswer {
  data: { contact: { id: string }; searchId: string; total: number; properties: unknown[] };
}

export const scenario: Scenario = {
  description: 'POST /v1/finder on PostgreSQL at 100k properties (100 x 1,000) vs a hand-written SQL route',
  run,
  check: ['--check'],
};
