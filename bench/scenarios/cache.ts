/**
 * Scenario `cache`: GET /v1/properties answered from the in-process portal cache, and revalidated
 * with If-None-Match (304), against the same service with the cache off (PORTAL_CACHE_SIZE_MB=0), on
 * PostgreSQL with 100 organizations x 1,000 properties, alternately in one invocation (decision 0225,
 * bench/README.md).
 */
import { request } from '../lib/admin-client.ts';
import { startChild, type ChildServer } from '../lib/child.ts';
import {
  entry,
  listingRequests,
  profileDirFor,
  portalScaleUsage,
  startPortalStack,
  startScaleScenario,
} from '../lib/portal-stack.ts';
import { machine, median, RESULTS_DIR, writeResult } from '../lib/report.ts';
import { failuresOf, mediansOf, pairedRounds, roundRatios, runsTable, type Target } from '../lib/rounds.ts';
import { DATABASE_USAGE, LOAD_USAGE, type Scenario } from '../lib/scenario.ts';
import type { ServiceServerOptions } from '../lib/service-server.ts';
import type { ScenarioSummary } from '../lib/verdict.ts';

const TARGETS = { cached: 3, notModified: 5 };
const DEFAULTS = { orgs: 100, perOrg: 1000, keys: 16 };

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- cache [options]

GET /v1/properties?city=&priceMax=&sortBy=price&sortOrder=asc three ways, each in its own round slot:
uncached (a service process with PORTAL_CACHE_SIZE_MB=0), cached (the default service, its cache warm),
not-modified (the same requests with If-None-Match: the answer's ETag, so every answer is a 304).
${LOAD_USAGE}
${portalScaleUsage(DEFAULTS)}
${DATABASE_USAGE}
With --check: the answers of both processes and the revalidations only, on the tiny stock.`;

const fmt = (value: number, digits = 3) => Number(value.toFixed(digits));

async function run(args: string[]): Promise<void> {
  const start = startScaleScenario('cache', args, DEFAULTS, USAGE);
  if (start === null) return;
  const { load, scale, serverUrl, startedAt, log } = start;
  const profileDir = profileDirFor(RESULTS_DIR, 'cache', startedAt);
  const profile = (name: string) =>
    load.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}/${name}`] : [];
  log(
    `cache${load.check ? ' --check' : ''}: ${scale.orgs} organizations x ${scale.perOrg} properties, ` +
      (load.check
        ? ''
        : `${load.rounds} x (uncached, cached, not-modified), -c ${load.connections} -d ${load.durationS} (+${load.warmupS} s warm-up), `) +
      `${scale.keys} publishable keys`,
  );
  const stack = await startPortalStack({
    serverUrl,
    database: scale.database,
    organizations: scale.orgs,
    perOrg: scale.perOrg,
    keys: scale.keys,
    keyOrganizations: scale.keys,
    nodeArgs: profile('cached'),
    log,
  });
  let uncached: ChildServer | null = null;
  try {
    uncached = await startChild<ServiceServerOptions>({
      name: 'uncached',
      entry: entry('service-server.ts'),
      options: { env: { DATABASE_URL: stack.database.url, PORTAL_CACHE_SIZE_MB: '0' } },
      nodeArgs: profile('uncached'),
    });
    const requests = listingRequests(stack.keys, stack.organizations);
    // Both processes answer the same bytes and the same ETag; the revalidations then all answer 304.
    const revalidations = [];
    for (const r of requests) {
      const init = { headers: r.headers };
      const cached = await request<unknown>(`${stack.service.url}${r.path}`, init, 200);
      const plain = await request<unknown>(`${uncached.url}${r.path}`, init, 200);
      const etag = cached.headers.get('etag');
      if (cached.text !== plain.text || etag === null || etag !== plain.headers.get('etag'))
        throw new Error(`the cached and uncached processes answer ${r.path} differently`);
      revalidations.push({ ...r, headers: { ...r.headers, 'if-none-match': etag } });
    }
    // Every revalidation answers 304 (the not-modified runs expect nothing else).
    if (revalidations.length === 0) throw new Error('no request to measure');
    for (const r of revalidations) {
      const revalidated = await fetch(`${stack.service.url}${r.path}`, { headers: r.headers });
      await revalidated.arrayBuffer();
      if (revalidated.status !== 304)
        throw new Error(
          `a revalidation did not answer 304: ${revalidated.status} ${JSON.stringify(r.headers)} ${revalidated.headers.get('etag')}`,
        );
    }
    log(
      `checked: ${requests.length} requests answer 200 with the same bytes and ETag from both processes ` +
        `(cached and uncached); each revalidation with that ETag answers 304`,
    );
    if (load.check) return;

    const targets: Target[] = [
      { name: 'uncached', url: uncached.url, pid: uncached.pid, requests },
      { name: 'cached', url: stack.service.url, pid: stack.service.pid, requests },
      {
        name: 'not-modified',
        url: stack.service.url,
        pid: stack.service.pid,
        requests: revalidations,
        expectedStatus: 304,
      },
    ];
    const runs = await pairedRounds(targets, load, log);
    const ratioOf = (name: string) => {
      const perRound = roundRatios(runs, 'uncached', name, (r) => r.reqPerSec);
      return { perRound, median: fmt(median(perRound.filter((r) => !Number.isNaN(r)))) };
    };
    const cachedRatio = ratioOf('cached');
    const notModifiedRatio = ratioOf('not-modified');
    const medians = Object.fromEntries(targets.map((t) => [t.name, mediansOf(runs, t.name)]));
    const failures = Object.fromEntries(targets.map((t) => [t.name, failuresOf(runs, t.name)]));
    const meets = {
      cached: cachedRatio.median >= TARGETS.cached,
      notModified: notModifiedRatio.median >= TARGETS.notModified,
    };
    log(
      `\n${runsTable(
        runs,
        targets.map((t) => t.name),
      )}\n\n` +
        `cached/uncached req/s, median of paired rounds: ${cachedRatio.median} (per round ${cachedRatio.perRound.join(', ')}); ` +
        `target >= ${TARGETS.cached}: ${meets.cached ? 'meets' : 'BELOW'}\n` +
        `not-modified/uncached: ${notModifiedRatio.median} (per round ${notModifiedRatio.perRound.join(', ')}); ` +
        `target >= ${TARGETS.notModified}: ${meets.notModified ? 'meets' : 'BELOW'}\n` +
        `unexpected statuses: ${JSON.stringify(failures)}`,
    );
    const file = writeResult('cache', startedAt, {
      scenario: 'cache',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- cache ${args.join(' ')}`.trim(),
      machine: machine(),
      stock: stack.stock,
      settings: {
        ...load,
        organizations: scale.orgs,
        perOrg: scale.perOrg,
        keys: scale.keys,
        requests: requests.length,
      },
      runs,
      medians,
      ratios: { cached: cachedRatio, notModified: notModifiedRatio },
      targets: TARGETS,
      meets,
      summary: {
        baseline: 'the same service with the cache off (uncached)',
        ratio: cachedRatio.median,
        ratioOf: 'cached / uncached req/s',
        targetText: `cached/uncached ≥ ${TARGETS.cached}; not-modified/uncached ≥ ${TARGETS.notModified} (${notModifiedRatio.median})`,
        met: meets.cached && meets.notModified,
        p50At75: null,
        p99At75: null,
        latencyNote: 'closed loop only',
      } satisfies ScenarioSummary,
      failures,
      ...(load.profile ? { profiles: profileDir } : {}),
    });
    log(`written ${file}`);
    if (Object.values(failures).some((f) => f.non2xx > 0 || f.errors > 0)) process.exitCode = 1;
  } finally {
    await uncached?.stop();
    await stack.stop();
  }
}

export const scenario: Scenario = {
  description: 'GET /v1/properties from the portal cache and as 304s vs the same service with the cache off',
  run,
  check: ['--check'],
};
