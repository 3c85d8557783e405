import { loadavg } from 'node:os';
import type { AutocannonRequest } from 'autocannon';
import { waitForQuiet } from './cpu.ts';
import { runLoad, type LoadSummary } from './load.ts';
import { median, table } from './report.ts';
import type { LoadArguments } from './scenario.ts';

/** Before each run, wait until the machine (the benchmark's processes idle) uses less than this... */
const QUIET_BUSY_PERCENT = 15;
/** ...but no longer than this; the `other` cpu% column shows what happened during the run. */
/** Override with BENCH_QUIET_TIMEOUT_S when the machine is known to stay busy (shared hosts). */
const QUIET_TIMEOUT_S = Number(process.env.BENCH_QUIET_TIMEOUT_S ?? 120);

/** A server a round measures, with the requests it is sent. */
export interface Target {
  name: string;
  /** Several URLs: the load is split evenly across them (bench/lib/load.ts). */
  url: string | string[];
  pid: number;
  /** More processes whose CPU use the run reports (e.g. a second service process). */
  pids?: Record<string, number>;
  requests: AutocannonRequest[];
  /** The status its answers should have (default any 2xx): 304 for revalidations. */
  expectedStatus?: number;
}

export interface RunRecord extends LoadSummary {
  round: number;
  target: string;
  /** Machine CPU use (percent of one core) in the second before the run, after waiting for quiet. */
  busyBeforePercent: number | null;
  waitedForQuietS: number;
  /** The machine's 1-minute load average just before the run (after waiting for quiet). */
  loadAverage1mBefore: number;
}

export interface Medians {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

const fmt = (value: number, digits = 1) => Number(value.toFixed(digits));

/** One measured run of `target` after waiting for a quiet machine; the other targets' CPU shows as idle*. */
async function measure(
  target: Target,
  targets: Target[],
  load: LoadArguments,
  round: number,
  log: (line: string) => void,
  overallRate?: number,
): Promise<RunRecord> {
  const quiet = await waitForQuiet(
    { maxBusyPercent: QUIET_BUSY_PERCENT, timeoutS: QUIET_TIMEOUT_S },
    (busy) =>
      log(`  (machine busy at ${busy}% of a core before the run: waiting up to ${QUIET_TIMEOUT_S} s)`),
  );
  const loadAverage1mBefore = Number((loadavg()[0] ?? 0).toFixed(2));
  const others = Object.fromEntries(
    targets.filter((t) => t !== target).map((t) => [`idle:${t.name}`, t.pid]),
  );
  const summary = await runLoad({
    url: target.url,
    connections: load.connections,
    durationS: load.durationS,
    warmupS: load.warmupS,
    requests: target.requests,
    cpuPids: { server: target.pid, ...others, ...target.pids },
    ...(overallRate === undefined ? {} : { overallRate }),
    ...(target.expectedStatus === undefined ? {} : { expectedStatus: target.expectedStatus }),
  });
  const label = overallRate === undefined ? `round ${round}` : `at ${overallRate}/s`;
  log(
    `  ${label} ${target.name.padEnd(10)} ${summary.reqPerSec.toFixed(0).padStart(6)} req/s  ` +
      `p50 ${summary.latencyMs.p50.toFixed(2)} ms  p99 ${summary.latencyMs.p99.toFixed(2)} ms  ` +
      `non-2xx ${summary.non2xx + summary.warmup.non2xx}  errors ${summary.errors + summary.timeouts + summary.warmup.errors}  ` +
      `cpu% server ${summary.cpu.processes.server ?? '?'} client ${summary.cpu.processes.client ?? '?'} other ${summary.cpu.other ?? '?'}`,
  );
  return {
    round,
    target: target.name,
    ...summary,
    busyBeforePercent: quiet.busyPercent,
    waitedForQuietS: quiet.waitedS,
    loadAverage1mBefore,
  };
}

/**
 * `rounds` times, each target in turn (the same order every round), each run after waiting for a
 * quiet machine: warm-up then measured load (bench/lib/load.ts). The CPU of every other target is
 * reported as idle* so a run disturbed by a neighbour shows.
 */
export async function pairedRounds(
  targets: Target[],
  load: LoadArguments,
  log: (line: string) => void,
  beforeRun?: (round: number, target: Target) => Promise<void>,
  afterRun?: (run: RunRecord, target: Target) => void,
): Promise<RunRecord[]> {
  const runs: RunRecord[] = [];
  for (let round = 1; round <= load.rounds; round++) {
    for (const target of targets) {
      await beforeRun?.(round, target);
      const run = await measure(target, targets, load, round, log);
      afterRun?.(run, target);
      runs.push(run);
    }
  }
  return runs;
}

export interface RateRecord extends RunRecord {
  /** Requests per second offered over all connections. */
  offeredPerSec: number;
  /** The share of the baseline's maximum it was asked as (`--rates 75%`: 0.75); absent for a fixed req/s. */
  share?: number;
}

/**
 * Latency at fixed offered rates (`load.rates`), each target once per rate with the same connections.
 * At the maximum rate a closed loop of N connections waits N / throughput on average (Little's law),
 * whatever the server; below it, the latency is the server's own.
 */
export async function rateRuns(
  targets: Target[],
  load: LoadArguments,
  baselinePerSec: number,
  log: (line: string) => void,
): Promise<RateRecord[]> {
  const runs: RateRecord[] = [];
  for (const spec of load.rates) {
    const offeredPerSec =
      'perSecond' in spec
        ? spec.perSecond
        : Math.max(1, Math.round((baselinePerSec * spec.ofBaseline) / 10) * 10);
    const share = 'ofBaseline' in spec ? { share: spec.ofBaseline } : {};
    for (const target of targets) {
      runs.push({
        ...(await measure(target, targets, load, 0, log, offeredPerSec)),
        offeredPerSec,
        ...share,
      });
    }
  }
  return runs;
}

/** Per offered rate, each target's achieved req/s and p50/p99, and whether p99 is under `targetP99Ms`. */
export function ratesTable(runs: RateRecord[], targetP99Ms: number): string {
  return table([
    ['offered/s', 'target', 'req/s', 'p50 ms', 'p99 ms', `p99 < ${targetP99Ms} ms`, 'non-2xx', 'errors'],
    ...runs.map((r) => [
      r.offeredPerSec,
      r.target,
      r.reqPerSec.toFixed(0),
      r.latencyMs.p50.toFixed(2),
      r.latencyMs.p99.toFixed(2),
      r.latencyMs.p99 < targetP99Ms ? 'yes' : 'NO',
      r.non2xx + r.warmup.non2xx,
      r.errors + r.timeouts + r.warmup.errors,
    ]),
  ]);
}

/** The highest offered rate at which `target`'s p99 stayed under `targetP99Ms` (null: none). */
export function highestRateUnder(runs: RateRecord[], target: string, targetP99Ms: number): number | null {
  const under = runs.filter((r) => r.target === target && r.latencyMs.p99 < targetP99Ms);
  return under.length === 0 ? null : Math.max(...under.map((r) => r.offeredPerSec));
}

export function mediansOf(runs: RunRecord[], target: string): Medians {
  const of = runs.filter((r) => r.target === target);
  return {
    reqPerSec: fmt(median(of.map((r) => r.reqPerSec))),
    p50Ms: fmt(median(of.map((r) => r.latencyMs.p50)), 3),
    p99Ms: fmt(median(of.map((r) => r.latencyMs.p99)), 3),
  };
}

/** Per round, `value(b) / value(a)` of the two targets' runs of that round. */
export function roundRatios(
  runs: RunRecord[],
  a: string,
  b: string,
  value: (run: RunRecord) => number,
): number[] {
  const rounds = [...new Set(runs.map((r) => r.round))];
  return rounds.map((round) => {
    const ra = runs.find((r) => r.round === round && r.target === a);
    const rb = runs.find((r) => r.round === round && r.target === b);
    return ra && rb ? fmt(value(rb) / value(ra), 3) : Number.NaN;
  });
}

/** Responses that were not 2xx, and socket errors/timeouts, of one target (warm-up included). */
export function failuresOf(runs: RunRecord[], target: string): { non2xx: number; errors: number } {
  const of = runs.filter((r) => r.target === target);
  return {
    non2xx: of.reduce((sum, r) => sum + r.non2xx + r.warmup.non2xx, 0),
    errors: of.reduce((sum, r) => sum + r.errors + r.timeouts + r.warmup.errors, 0),
  };
}

/** The per-run table, then one median line per target. */
export function runsTable(runs: RunRecord[], targets: string[]): string {
  const rows: Array<Array<string | number>> = [
    [
      'round',
      'target',
      'req/s',
      'p50 ms',
      'p99 ms',
      'p99 ms (ac)',
      'requests',
      'non-2xx',
      'errors',
      'cpu% srv/cli/other',
    ],
    ...runs.map((r) => [
      r.round,
      r.target,
      r.reqPerSec.toFixed(0),
      r.latencyMs.p50.toFixed(2),
      r.latencyMs.p99.toFixed(2),
      r.autocannonLatencyMs.p99,
      r.completed,
      r.non2xx + r.warmup.non2xx,
      r.errors + r.timeouts + r.warmup.errors,
      [r.cpu.processes.server, r.cpu.processes.client, r.cpu.other].map((v) => v ?? '?').join('/'),
    ]),
    ...targets.map((target) => {
      const m = mediansOf(runs, target);
      return [
        'median',
        target,
        m.reqPerSec.toFixed(0),
        m.p50Ms.toFixed(2),
        m.p99Ms.toFixed(2),
        '',
        '',
        '',
        '',
        '',
      ];
    }),
  ];
  return table(rows);
}
