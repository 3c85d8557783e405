/**
 * Scenario `memory`: what an uncached portal listing leaves to the garbage collector. Two service
 * processes on the same PostgreSQL stock (100 organizations x 1,000 properties, portal cache off),
 * each under `node --trace-gc-nvp`: `pretenuring` keeps V8's allocation-site pretenuring
 * (V8_PRETENURING=true, the service before decision 0227), `service` runs as shipped. Alternated rounds;
 * per listing: bytes promoted to the old generation by scavenges, scavenges and mark-compacts, GC
 * pause, Node CPU; the heap after the last collection (bench/README.md, "Memory").
 */
import { join } from 'node:path';
import { request } from '../lib/admin-client.ts';
import { startChild, type ChildServer } from '../lib/child.ts';
import {
  entry,
  listingRequests,
  profileDirFor,
  scaleStackOptions,
  portalScaleUsage,
  startPortalStack,
  startScaleScenario,
} from '../lib/portal-stack.ts';
import { machine, median, RESULTS_DIR, table, writeResult } from '../lib/report.ts';
import {
  mediansOf,
  pairedRounds,
  roundRatios,
  runsTable,
  type RunRecord,
  type Target,
} from '../lib/rounds.ts';
import { DATABASE_USAGE, LOAD_USAGE, type Scenario } from '../lib/scenario.ts';
import type { ServiceServerOptions } from '../lib/service-server.ts';
import type { ScenarioSummary } from '../lib/verdict.ts';

/** Promoted bytes per listing the service may leave (the hand-written route: ~0.03 KB). */
const TARGET_PROMOTED_KB = 1;
const DEFAULTS = { orgs: 100, perOrg: 1000, keys: 16 };
/** With --profile: the answers sampled, after the check's and the first warm-up's. */
const PROFILED_ANSWERS = { from: 1_000, to: 3_000 };

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- memory [options]

GET /v1/properties (portal cache off) of two service processes under --trace-gc-nvp, alternately:
pretenuring (V8_PRETENURING=true) and service (as shipped). Reports promoted KB, scavenges,
mark-compacts, GC pause and CPU per listing, and the heap after the last collection.
${LOAD_USAGE}
${portalScaleUsage(DEFAULTS)}
${DATABASE_USAGE}
With --profile: a sampling heap profile of each process, of what its scavenges promote (objects that
died young left out), over its answers 1,000 to 3,000 (after the check and the first warm-up):
bench/results/profiles/memory-<time>/<target>.heapprofile, for Chrome DevTools (Memory tab, Load).
With --check: on the tiny stock, both processes answer every request 200 with identical bodies and their
GC trace is read (collections counted); no load.`;

/** Running totals of one process's --trace-gc-nvp lines. */
interface GcTotals {
  scavenges: number;
  fullCollections: number;
  promotedBytes: number;
  pauseMs: number;
  /** total_size_after of the latest collection. */
  heapAfterBytes: number;
}

/** Reads `key=value` fields of one --trace-gc-nvp line into `totals`. */
function countGc(totals: GcTotals, line: string): void {
  const kind = / gc=(\S+)/.exec(line)?.[1];
  if (kind === undefined) return;
  const field = (name: string) => Number(new RegExp(` ${name}=([0-9.]+)`).exec(line)?.[1] ?? 0);
  if (kind === 's') {
    totals.scavenges++;
    totals.promotedBytes += field('promoted');
  } else {
    totals.fullCollections++;
  }
  totals.pauseMs += field('pause');
  totals.heapAfterBytes = field('total_size_after');
}

interface GcPerListing {
  round: number;
  target: string;
  listings: number;
  promotedKbPerListing: number;
  scavengesPer1000: number;
  fullCollectionsPer1000: number;
  gcPauseMsPerListing: number;
  cpuMsPerListing: number | null;
  heapAfterMb: number;
}

const fmt = (value: number, digits = 3) => Number(value.toFixed(digits));

async function run(args: string[]): Promise<void> {
  const start = startScaleScenario('memory', args, DEFAULTS, USAGE);
  if (start === null) return;
  const { load, scale, serverUrl, startedAt, log } = start;
  log(
    `memory${load.check ? ' --check' : ''}: ${scale.orgs} organizations x ${scale.perOrg} properties, ` +
      (load.check
        ? ''
        : `${load.rounds} x (pretenuring, service), -c ${load.connections} -d ${load.durationS} (+${load.warmupS} s warm-up), `) +
      `portal cache off`,
  );
  const profileDir = profileDirFor(RESULTS_DIR, 'memory', startedAt);
  const stack = await startPortalStack(scaleStackOptions(serverUrl, scale, log));
  const processes: Array<{ name: string; child: ChildServer; totals: GcTotals }> = [];
  try {
    for (const [name, pretenuring] of [
      ['pretenuring', 'true'],
      ['service', 'false'],
    ] as const) {
      const totals: GcTotals = {
        scavenges: 0,
        fullCollections: 0,
        promotedBytes: 0,
        pauseMs: 0,
        heapAfterBytes: 0,
      };
      const child = await startChild<ServiceServerOptions>({
        name,
        entry: entry('service-server.ts'),
        options: {
          env: { DATABASE_URL: stack.database.url, PORTAL_CACHE_SIZE_MB: '0', V8_PRETENURING: pretenuring },
          ...(load.profile
            ? { heapProfile: { path: join(profileDir, `${name}.heapprofile`), ...PROFILED_ANSWERS } }
            : {}),
        },
        nodeArgs: ['--trace-gc-nvp'],
        onStdoutLine: (line) => countGc(totals, line),
      });
      processes.push({ name, child, totals });
    }
    const requests = listingRequests(stack.keys, stack.organizations);
    // Both configurations answer what the load sends, alike; each one's GC trace reaches countGc.
    for (const r of requests) {
      const answers = await Promise.all(
        processes.map((p) => request<unknown>(`${p.child.url}${r.path}`, { headers: r.headers }, 200)),
      );
      if (answers.some((a) => a.text !== answers[0]?.text))
        throw new Error(`the two processes answer ${r.path} differently`);
    }
    const untraced = processes.filter((p) => p.totals.scavenges + p.totals.fullCollections === 0);
    if (untraced.length > 0)
      throw new Error(`no GC trace read from ${untraced.map((p) => p.name).join(', ')} (--trace-gc-nvp)`);
    log(
      `checked: ${requests.length} requests answer 200 with identical bodies from both processes; GC traces read ` +
        `(${processes.map((p) => `${p.name}: ${p.totals.scavenges} scavenges`).join(', ')})`,
    );
    if (load.check) return;
    const targets: Target[] = processes.map((p) => ({
      name: p.name,
      url: p.child.url,
      pid: p.child.pid,
      requests,
    }));
    const before = new Map<string, GcTotals>();
    const perListing: GcPerListing[] = [];
    const totalsOf = (name: string) => processes.find((p) => p.name === name)?.totals;
    const runs = await pairedRounds(
      targets,
      load,
      log,
      async (_round, target) => {
        const totals = totalsOf(target.name);
        if (totals) before.set(target.name, { ...totals });
      },
      (record: RunRecord, target) => {
        const [start, end] = [before.get(target.name), totalsOf(target.name)];
        if (!start || !end) return;
        // The window holds the warm-up too: its listings count.
        const listings = record.completed + record.warmup.completed;
        const server = record.cpu.processes.server;
        perListing.push({
          round: record.round,
          target: target.name,
          listings,
          promotedKbPerListing: fmt((end.promotedBytes - start.promotedBytes) / 1024 / listings, 2),
          scavengesPer1000: fmt(((end.scavenges - start.scavenges) * 1000) / listings, 1),
          fullCollectionsPer1000: fmt(((end.fullCollections - start.fullCollections) * 1000) / listings, 2),
          gcPauseMsPerListing: fmt((end.pauseMs - start.pauseMs) / listings, 4),
          // Percent of a core over the measured run / listings per second = ms of CPU per listing.
          cpuMsPerListing: server == null ? null : fmt((server * 10) / record.completedPerSec, 3),
          heapAfterMb: fmt(end.heapAfterBytes / 2 ** 20, 1),
        });
      },
    );
    const mediansBy = (name: string) => {
      const rows = perListing.filter((r) => r.target === name);
      const m = (pick: (r: GcPerListing) => number | null) =>
        fmt(median(rows.map(pick).filter((v): v is number => v !== null)), 4);
      return {
        promotedKbPerListing: m((r) => r.promotedKbPerListing),
        scavengesPer1000: m((r) => r.scavengesPer1000),
        fullCollectionsPer1000: m((r) => r.fullCollectionsPer1000),
        gcPauseMsPerListing: m((r) => r.gcPauseMsPerListing),
        cpuMsPerListing: m((r) => r.cpuMsPerListing),
        heapAfterMb: m((r) => r.heapAfterMb),
      };
    };
    const gc = { pretenuring: mediansBy('pretenuring'), service: mediansBy('service') };
    const throughput = roundRatios(runs, 'pretenuring', 'service', (r) => r.reqPerSec);
    const throughputRatio = fmt(median(throughput.filter((r) => !Number.isNaN(r))));
    const met = gc.service.promotedKbPerListing <= TARGET_PROMOTED_KB;
    log(
      `\n${runsTable(
        runs,
        targets.map((t) => t.name),
      )}\n\n${table([
        [
          'round',
          'target',
          'listings',
          'promoted KB/listing',
          'scavenges/1000',
          'full GCs/1000',
          'GC pause ms/listing',
          'CPU ms/listing',
          'heap after MB',
        ],
        ...perListing.map((r) => [
          r.round,
          r.target,
          r.listings,
          r.promotedKbPerListing,
          r.scavengesPer1000,
          r.fullCollectionsPer1000,
          r.gcPauseMsPerListing,
          r.cpuMsPerListing ?? '?',
          r.heapAfterMb,
        ]),
      ])}\n\n` +
        `promoted per listing (median): ${gc.pretenuring.promotedKbPerListing} KB with pretenuring, ` +
        `${gc.service.promotedKbPerListing} KB as shipped; target <= ${TARGET_PROMOTED_KB} KB: ${met ? 'meets' : 'ABOVE'}\n` +
        `service/pretenuring req/s, median of paired rounds: ${throughputRatio} (per round ${throughput.join(', ')})`,
    );
    const file = writeResult('memory', startedAt, {
      scenario: 'memory',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- memory ${args.join(' ')}`.trim(),
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
      medians: Object.fromEntries(targets.map((t) => [t.name, mediansOf(runs, t.name)])),
      gc,
      perListing,
      throughput: { perRound: throughput, median: throughputRatio },
      summary: {
        baseline: 'the same service with V8 pretenuring on (before)',
        ratio:
          gc.pretenuring.promotedKbPerListing === 0
            ? null
            : fmt(gc.service.promotedKbPerListing / gc.pretenuring.promotedKbPerListing),
        ratioOf: `promoted KB per listing, shipped / before (${gc.service.promotedKbPerListing} / ${gc.pretenuring.promotedKbPerListing})`,
        targetText: `≤ ${TARGET_PROMOTED_KB} KB promoted per uncached listing`,
        met,
        p50At75: null,
        p99At75: null,
        latencyNote: 'closed loop only',
      } satisfies ScenarioSummary,
    });
    log(`written ${file}`);
    if (load.profile) log(`heap profiles of promoted objects: ${profileDir}`);
  } finally {
    for (const p of processes) await p.child.stop();
    await stack.stop();
  }
}

export const scenario: Scenario = {
  description:
    'GC cost of an uncached portal listing: promoted bytes, collections, heap (V8 pretenuring on vs off)',
  run,
  check: ['--check'],
};
