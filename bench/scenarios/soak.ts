/**
 * Scenario `soak`: mixed portal and CRM traffic at a fixed share (default 70 %) of the capacity
 * measured first (or given), for a long run (default 10 minutes), sampled every 10 s: requests,
 * p50/p99, answers that are not 2xx (429 apart), socket errors, the service's RSS
 * (/proc/<pid>/status) and its PostgreSQL connections (pg_stat_activity). Verdicts at the end: no
 * errors but 429, RSS flat, connections flat, p99 not drifting (last third of the run against the
 * first). See bench/README.md and docs/reliability.md.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { AutocannonRequest } from 'autocannon';
import { runOpenLoop } from '../lib/open-loop.ts';
import { adminClient } from '../lib/admin-client.ts';
import { requireDatabaseUrl } from '../lib/bench-database.ts';
import { waitForQuiet } from '../lib/cpu.ts';
import { DOMAINS, FIRST, LAST } from '../lib/contacts-data.ts';
import { runLoad } from '../lib/load.ts';
import { citiesOf, SALE_PRICE_MIDDLE } from '../lib/portal-data.ts';
import {
  KEY_LIMIT_PER_MINUTE,
  listingRequests,
  POOL_SIZE,
  publishedListings,
  scaleStackOptions,
  startPortalStack,
} from '../lib/portal-stack.ts';
import { machine, median, table, writeResult } from '../lib/report.ts';
import {
  CHECK_USAGE,
  DATABASE_USAGE,
  parseScaleArguments,
  positive,
  UsageError,
  type Scenario,
} from '../lib/scenario.ts';
import { fold } from '../../src/platform/text/fold.ts';

const DEFAULTS = { orgs: 50, perOrg: 1000, keys: 16 };
const DEFAULT_CONTACTS_PER_ORG = 1000;
/** `--check`: contacts per organization of the tiny stock (the scale's CHECK_SCALE for the rest). */
const CHECK_CONTACTS_PER_ORG = 100;
const DEFAULT_SOAK_S = 600;
const DEFAULT_CAPACITY_S = 30;
const DEFAULT_SHARE_PERCENT = 70;
const INTERVAL_S = 10;
/** RSS is flat when the last third's median is within this factor of the first third's. */
const RSS_GROWTH_LIMIT = 1.15;
/** p99 is not drifting when the last third's median interval p99 is within this factor of the first's. */
const P99_DRIFT_LIMIT = 1.5;
const WRITE_LIMIT_PER_MINUTE = 100_000;

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- soak [options]

Mixed traffic (per 10 requests: 4 portal listings, 3 listing details, 1 contacts search, 1 lead form,
1 finder search) at a share of the capacity, sampled every ${INTERVAL_S} s. A fresh database (generated
stock: properties and contacts, dropped at the end), or --database.
  --duration S         seconds of soak (default ${DEFAULT_SOAK_S})
  --warmup S           seconds at the soak rate before sampling starts (default 10)
  --capacity N         the capacity in req/s; default: measured first (closed loop, --connections)
  --capacity-duration S  seconds of that measurement (default ${DEFAULT_CAPACITY_S}, after --warmup)
  --share P            percent of the capacity offered during the soak (default ${DEFAULT_SHARE_PERCENT})
  --connections N      connections (default 50)
  --orgs N             organizations (default ${DEFAULTS.orgs})
  --per-org N          properties per organization (default ${DEFAULTS.perOrg})
  --contacts-per-org N contacts per organization (default ${DEFAULT_CONTACTS_PER_ORG})
  --keys N             publishable keys (and as many secret keys), one per organization from the first (default ${DEFAULTS.keys})
${DATABASE_USAGE}
${CHECK_USAGE}
                   (every request of the mix once, each answering 2xx; no capacity run, no soak)`;

type Request = AutocannonRequest & { path: string };

let sent = Math.floor(Math.random() * 40_000_000);
/** A Spanish mobile number (+34 65...), new on every call: each form is a new person. */
const nextPhone = () => `+346${50_000_000 + (sent++ % 40_000_000)}`;

/** A write whose body gets a fresh phone number each time it is sent. */
function writeRequest(path: string, key: string, body: Record<string, unknown>): Request {
  return {
    method: 'POST',
    path,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: '{}',
    setupRequest: (req) => ({ ...req, body: JSON.stringify({ ...body, phone: nextPhone() }) }),
  };
}

function rssBytes(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

interface Interval {
  endS: number;
  requests: number;
  reqPerSec: number;
  p50Ms: number | null;
  p99Ms: number | null;
  status429: number;
  otherNon2xx: Record<string, number>;
  errors: number;
  rssMiB: number | null;
  pgConnections: number | null;
  pgActive: number | null;
}

const percentileOf = (sorted: number[], p: number) =>
  sorted.length === 0
    ? null
    : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? null);
const round = (value: number | null, digits = 2) => (value === null ? null : Number(value.toFixed(digits)));
const thirds = <T>(items: T[]) => {
  const third = Math.max(1, Math.floor(items.length / 3));
  return { first: items.slice(0, third), last: items.slice(-third) };
};
const medianOf = (values: Array<number | null>) => median(values.filter((v): v is number => v !== null));

async function run(args: string[]): Promise<void> {
  const { load, help, scale, text } = parseScaleArguments(args, DEFAULTS, {
    capacity: { type: 'string' },
    'capacity-duration': { type: 'string' },
    share: { type: 'string' },
    'contacts-per-org': { type: 'string' },
  });
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const soakS = text('duration') === undefined ? DEFAULT_SOAK_S : load.durationS;
  const capacityS = positive('capacity-duration', text('capacity-duration'), DEFAULT_CAPACITY_S, 1);
  const sharePercent = positive('share', text('share'), DEFAULT_SHARE_PERCENT, 1);
  if (sharePercent > 100) throw new UsageError('--share is a percent of the capacity, at most 100');
  const givenCapacity = text('capacity') === undefined ? null : positive('capacity', text('capacity'), 0, 1);
  const contactsPerOrg = positive(
    'contacts-per-org',
    text('contacts-per-org'),
    load.check ? CHECK_CONTACTS_PER_ORG : DEFAULT_CONTACTS_PER_ORG,
    1,
  );
  const serverUrl = requireDatabaseUrl('soak');
  const startedAt = new Date();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(
    `soak: ${scale.database ?? `${scale.orgs} organizations x (${scale.perOrg} properties, ${contactsPerOrg} contacts)`}, ` +
      (load.check
        ? 'check only: the mix once'
        : `${soakS} s at ${sharePercent} % of ${givenCapacity ?? 'the measured'} capacity, -c ${load.connections}, sampled every ${INTERVAL_S} s`),
  );
  const stack = await startPortalStack({
    ...scaleStackOptions(serverUrl, scale, log),
    writeLimitPerMinute: KEY_LIMIT_PER_MINUTE,
    organizationWriteLimitPerMinute: WRITE_LIMIT_PER_MINUTE,
    generate: { contactsPerOrg, eventsPerOrg: 0 },
  });
  const sampler = new pg.Client({
    connectionString: stack.database.url,
    application_name: 'bench-soak-sampler',
  });
  await sampler.connect();
  try {
    // Secret keys for the contacts search, on the same agencies as the publishable ones.
    const admin = adminClient(stack.service.url);
    const secret = new Map<string, string>();
    for (const organizationId of new Set(stack.keys.map((k) => k.organizationId))) {
      const key = await admin.post<{ key: string; rateLimitPerMinute: number }>(
        `/admin/v1/organizations/${organizationId}/api-keys`,
        { type: 'secret', name: 'bench soak', rateLimitPerMinute: KEY_LIMIT_PER_MINUTE },
      );
      secret.set(organizationId, key.key);
    }
    const listings = await publishedListings(stack.database.url, [...secret.keys()], 8);
    const lists = listingRequests(stack.keys, stack.organizations);
    const requests: Request[] = [];
    stack.keys.forEach((key, k) => {
      const orgIndex = stack.organizations.findIndex((o) => o.id === key.organizationId);
      const [home = '', second = ''] = citiesOf(orgIndex);
      const ids = listings.get(key.organizationId) ?? [];
      const contactsKey = secret.get(key.organizationId) ?? '';
      const detail = (j: number): Request => ({
        method: 'GET',
        path: `/v1/properties/${ids[(k + j) % ids.length]}`,
        headers: { 'x-api-key': key.key },
      });
      const list = (j: number): Request => lists[(k + j * stack.keys.length) % lists.length] as Request;
      const q = [
        FIRST[k % FIRST.length]?.slice(0, 4) ?? 'Jos',
        LAST[(k * 7 + 13) % LAST.length] ?? 'Muñoz',
        `${fold(LAST[(k * 3) % LAST.length] ?? '')}`,
        `@${DOMAINS[k % DOMAINS.length]}`,
      ][k % 4];
      requests.push(
        list(0),
        detail(0),
        list(1),
        detail(1),
        {
          method: 'GET',
          path: `/v1/contacts?q=${encodeURIComponent(q ?? '')}&pageSize=20`,
          headers: { 'x-api-key': contactsKey },
        },
        list(2),
        detail(2),
        writeRequest('/v1/leads', key.key, {
          firstName: 'Visitante',
          lastName: 'Soak',
          message: '¿Sigue disponible?',
          ...(ids[k % ids.length] === undefined ? {} : { propertyId: ids[k % ids.length] }),
        }),
        list(3),
        writeRequest('/v1/finder', key.key, {
          firstName: 'Visitante',
          ...(k % 2 === 0
            ? { transactionType: 'SALE', city: home, budgetMax: SALE_PRICE_MIDDLE, minBedrooms: 2 }
            : { transactionType: 'RENT', city: second, budgetMax: 1200 }),
        }),
      );
    });

    // Each request once: every one must succeed before a long run is worth starting.
    for (const r of requests) {
      const prepared = r.setupRequest ? r.setupRequest(r, {}) : r;
      const response = await fetch(`${stack.service.url}${r.path}`, {
        method: r.method ?? 'GET',
        headers: r.headers ?? {},
        ...(prepared.body === undefined ? {} : { body: prepared.body as string }),
      });
      if (response.status >= 300)
        throw new Error(`${r.method} ${r.path}: ${response.status} ${await response.text()}`);
    }
    log(
      `checked: the ${requests.length} requests of the mix (portal listings and details, contacts searches, lead forms, finder searches) answer 2xx`,
    );
    if (load.check) return;

    await waitForQuiet(
      { maxBusyPercent: 15, timeoutS: Number(process.env.BENCH_QUIET_TIMEOUT_S ?? 120) },
      (busy) => log(`  (machine busy at ${busy}% of a core: waiting)`),
    );
    let capacity = givenCapacity;
    let capacityRun: unknown = null;
    if (capacity === null) {
      const measured = await runLoad({
        url: stack.service.url,
        connections: load.connections,
        durationS: capacityS,
        warmupS: load.warmupS,
        requests,
        cpuPids: { server: stack.service.pid },
      });
      capacity = Math.round(measured.reqPerSec);
      capacityRun = measured;
      log(
        `capacity (closed loop, ${load.connections} connections, ${capacityS} s): ${capacity} req/s, p99 ${measured.latencyMs.p99} ms, ` +
          `non-2xx ${measured.non2xx}, cpu% server ${measured.cpu.processes.server} other ${measured.cpu.other}`,
      );
    }
    const offered = Math.max(1, Math.round((capacity * sharePercent) / 100));
    log(`soak: ${offered} req/s offered (${sharePercent} % of ${capacity}) for ${soakS} s`);
    const openLoop = {
      urls: [stack.service.url],
      connections: load.connections,
      requests,
      ratePerSec: offered,
    };
    if (load.warmupS > 0) await runOpenLoop({ ...openLoop, durationS: load.warmupS });

    const intervals: Interval[] = [];
    let bucket = { latencies: [] as number[], statuses: {} as Record<string, number>, errors: 0, count: 0 };
    const pending: Array<Promise<void>> = [];
    const soakStarted = performance.now();
    let lastAt = soakStarted;
    const sample = () => {
      const now = performance.now();
      const current = bucket;
      bucket = { latencies: [], statuses: {}, errors: 0, count: 0 };
      const seconds = (now - lastAt) / 1000;
      lastAt = now;
      const rss = rssBytes(stack.service.pid);
      const sorted = current.latencies.sort((a, b) => a - b);
      const { 429: limited = 0, ...others } = current.statuses;
      const interval: Interval = {
        endS: Math.round((now - soakStarted) / 1000),
        requests: current.count,
        reqPerSec: Math.round(current.count / seconds),
        p50Ms: round(percentileOf(sorted, 50)),
        p99Ms: round(percentileOf(sorted, 99)),
        status429: limited,
        otherNon2xx: others,
        errors: current.errors,
        rssMiB: rss === null ? null : round(rss / 2 ** 20, 1),
        pgConnections: null,
        pgActive: null,
      };
      intervals.push(interval);
      pending.push(
        sampler
          .query<{ total: number; active: number }>(
            `SELECT count(*)::int AS total, count(*) FILTER (WHERE state <> 'idle')::int AS active
             FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
          )
          .then(({ rows }) => {
            interval.pgConnections = rows[0]?.total ?? null;
            interval.pgActive = rows[0]?.active ?? null;
            log(
              `  ${String(interval.endS).padStart(4)} s  ${String(interval.reqPerSec).padStart(5)} req/s  ` +
                `p50 ${interval.p50Ms ?? '-'} ms  p99 ${interval.p99Ms ?? '-'} ms  429 ${interval.status429}  ` +
                `other non-2xx ${JSON.stringify(interval.otherNon2xx)}  errors ${interval.errors}  ` +
                `RSS ${interval.rssMiB} MiB  pg ${interval.pgConnections} (${interval.pgActive} active)`,
            );
          }),
      );
    };
    const timer = setInterval(sample, INTERVAL_S * 1000);
    const result = await runOpenLoop({
      ...openLoop,
      durationS: soakS,
      onAnswer: (_dueAtMs, latencyMs, statusCode) => {
        bucket.count++;
        if (statusCode >= 200 && statusCode < 300) bucket.latencies.push(latencyMs);
        else bucket.statuses[statusCode] = (bucket.statuses[statusCode] ?? 0) + 1;
      },
      // Timeouts are counted once, from the result, below.
      onError: (timedOut) => {
        if (!timedOut) bucket.errors++;
      },
    });
    clearInterval(timer);
    // The tail shorter than an interval is left out of the table (its rates would not compare).
    await Promise.all(pending);

    // Verdicts: the first interval (start-up of the rate) is left out of the "first third".
    const steady = intervals.slice(1);
    const { first, last } = thirds(steady);
    const totals = {
      requests: intervals.reduce((sum, i) => sum + i.requests, 0),
      status429: intervals.reduce((sum, i) => sum + i.status429, 0),
      otherNon2xx: intervals.reduce(
        (sum, i) => sum + Object.values(i.otherNon2xx).reduce((a, b) => a + b, 0),
        0,
      ),
      errors: intervals.reduce((sum, i) => sum + i.errors, 0) + result.timeouts,
    };
    const rss = { first: medianOf(first.map((i) => i.rssMiB)), last: medianOf(last.map((i) => i.rssMiB)) };
    const connections = {
      max: Math.max(...intervals.map((i) => i.pgConnections ?? 0)),
      firstMax: Math.max(...first.map((i) => i.pgConnections ?? 0)),
      lastMax: Math.max(...last.map((i) => i.pgConnections ?? 0)),
    };
    const p99 = { first: medianOf(first.map((i) => i.p99Ms)), last: medianOf(last.map((i) => i.p99Ms)) };
    const verdicts = {
      noErrorsBut429: totals.otherNon2xx === 0 && totals.errors === 0,
      rssFlat: rss.last <= rss.first * RSS_GROWTH_LIMIT,
      connectionsFlat: connections.max <= POOL_SIZE && connections.lastMax <= connections.firstMax,
      p99NotDrifting: p99.last <= p99.first * P99_DRIFT_LIMIT,
    };
    log(
      `\n${table([
        [
          'end s',
          'req/s',
          'p50 ms',
          'p99 ms',
          '429',
          'other non-2xx',
          'errors',
          'RSS MiB',
          'pg conns',
          'pg active',
        ],
        ...intervals.map((i) => [
          i.endS,
          i.reqPerSec,
          i.p50Ms ?? '',
          i.p99Ms ?? '',
          i.status429,
          Object.values(i.otherNon2xx).reduce((a, b) => a + b, 0),
          i.errors,
          i.rssMiB ?? '',
          i.pgConnections ?? '',
          i.pgActive ?? '',
        ]),
      ])}\n\n` +
        `offered ${offered} req/s (${sharePercent} % of ${capacity}); answered ${totals.requests} requests, ${totals.status429} x 429\n` +
        `no errors but 429: ${verdicts.noErrorsBut429 ? 'yes' : 'NO'} (other non-2xx ${totals.otherNon2xx}, socket errors/timeouts ${totals.errors})\n` +
        `RSS flat: ${verdicts.rssFlat ? 'yes' : 'NO'} (median ${rss.first} MiB in the first third, ${rss.last} MiB in the last; bound x${RSS_GROWTH_LIMIT})\n` +
        `PostgreSQL connections flat: ${verdicts.connectionsFlat ? 'yes' : 'NO'} (max ${connections.max}, pool ${POOL_SIZE}; first third max ${connections.firstMax}, last ${connections.lastMax})\n` +
        `p99 not drifting: ${verdicts.p99NotDrifting ? 'yes' : 'NO'} (median interval p99 ${p99.first} ms in the first third, ${p99.last} ms in the last; bound x${P99_DRIFT_LIMIT})`,
    );
    const file = writeResult('soak', startedAt, {
      scenario: 'soak',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- soak ${args.join(' ')}`.trim(),
      machine: machine(),
      stock: stack.stock,
      settings: {
        connections: load.connections,
        warmupS: load.warmupS,
        soakS,
        intervalS: INTERVAL_S,
        sharePercent,
        capacityS,
        keys: scale.keys,
        poolSize: POOL_SIZE,
        mix: requests.map((r) => `${r.method} ${r.path}`),
        bounds: { rssGrowth: RSS_GROWTH_LIMIT, p99Drift: P99_DRIFT_LIMIT },
      },
      service: { pid: stack.service.pid, ...stack.service.info },
      capacity: { reqPerSec: capacity, given: givenCapacity !== null, run: capacityRun },
      offeredPerSec: offered,
      openLoop: {
        reqPerSec: Math.round((result.completed / result.elapsedS) * 10) / 10,
        scheduled: result.scheduled,
        total: result.completed,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        statusCodes: result.statusCodes,
      },
      intervals,
      totals,
      rss,
      connections,
      p99,
      verdicts,
    });
    log(`written ${file}`);
    if (!Object.values(verdicts).every(Boolean)) process.exitCode = 1;
  } finally {
    await sampler.end();
    await stack.stop();
  }
}

export const scenario: Scenario = {
  description: 'mixed traffic at 70 % of capacity for 10 minutes: errors, RSS, connections, p99 every 10 s',
  run,
  check: ['--check'],
};
