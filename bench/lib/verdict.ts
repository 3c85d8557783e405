/**
 * The one-line verdict a scenario with a target writes into its result file as `summary`, and
 * `npm run bench -- summary` (bench/scenarios/summary.ts) puts in one table: what the service was
 * compared with, the median paired ratio, the latency at 75 % load, the target and whether it was met.
 */
import type { RateRecord } from './rounds.ts';
import type { BaselineKind } from './scenario.ts';

export interface ScenarioSummary {
  /** What the service is compared with ("hand-written SQL route", "the 10k database", "none"). */
  baseline: string;
  /** Median of the paired rounds' service/baseline ratio (req/s unless `ratioOf` says otherwise); null without one. */
  ratio: number | null;
  /** What `ratio` divides, when it is not req/s (e.g. "p99 1M / 10k"). */
  ratioOf?: string;
  /** The target, in words. */
  targetText: string;
  /** Whether this run meets it; null when the run did not measure what it needs (e.g. `--rates none`). */
  met: boolean | null;
  /** The service's p50 and p99 (ms) in the open-loop run at 75 % of the baseline's maximum; null without one. */
  p50At75: number | null;
  p99At75: number | null;
  /** Where the p50/p99 come from when it is not the 75 % open-loop run. */
  latencyNote?: string;
}

/** The labels of the two kinds of baseline `--baseline` chooses between. */
export const BASELINE_LABELS: Record<BaselineKind, string> = {
  sql: 'hand-written SQL route',
  self: "service's own code on a bare pool (self)",
};

/** `target`'s p50/p99 in the open-loop run at 75 % of the baseline's maximum (`--rates` with 75%). */
export function latencyAt75(
  rates: readonly RateRecord[],
  target = 'service',
): { p50At75: number | null; p99At75: number | null } {
  const run = rates.find((r) => r.target === target && r.share === 0.75);
  return run
    ? { p50At75: Number(run.latencyMs.p50.toFixed(2)), p99At75: Number(run.latencyMs.p99.toFixed(2)) }
    : { p50At75: null, p99At75: null };
}

/**
 * The verdict of a "service vs baseline" scenario: optionally a minimum paired ratio, and a p99
 * target judged at 75 % load (the open-loop run; unmeasured: `met` null).
 */
export function baselineVerdict(options: {
  baseline: string;
  pairedRatio: number;
  rates: readonly RateRecord[];
  p99Ms: number;
  minRatio?: number;
}): ScenarioSummary {
  const at75 = latencyAt75(options.rates);
  const parts = [
    ...(options.minRatio === undefined ? [] : [`service/baseline ≥ ${options.minRatio}`]),
    `p99 < ${options.p99Ms} ms at 75 % load`,
  ];
  const ratioMet = options.minRatio === undefined || options.pairedRatio >= options.minRatio;
  const latencyMet = at75.p99At75 === null ? null : at75.p99At75 < options.p99Ms;
  return {
    baseline: options.baseline,
    ratio: Number.isNaN(options.pairedRatio) ? null : options.pairedRatio,
    targetText: parts.join('; '),
    met: !ratioMet ? false : latencyMet,
    ...at75,
  };
}
