/**
 * The measurement every "service vs bare baseline" scenario makes once its servers are checked:
 * paired rounds (baseline, service), then the fixed offered rates, the paired ratio, the p99
 * verdict and the failure counts, printed as tables; the scenario writes the answer into its
 * result file.
 */
import { median } from './report.ts';
import {
  failuresOf,
  highestRateUnder,
  mediansOf,
  pairedRounds,
  rateRuns,
  ratesTable,
  roundRatios,
  runsTable,
  type Target,
} from './rounds.ts';
import type { LoadArguments } from './scenario.ts';

const fmt = (value: number, digits = 3) => Number(value.toFixed(digits));

export async function measureAgainstBaseline(
  baseline: Target,
  service: Target,
  load: LoadArguments,
  targetP99Ms: number,
  log: (line: string) => void,
  /** What the baseline is, for the printed ratio line. */
  baselineLabel?: string,
) {
  const targets = [
    { ...baseline, name: 'baseline' },
    { ...service, name: 'service' },
  ];
  const runs = await pairedRounds(targets, load, log);
  const medians = { baseline: mediansOf(runs, 'baseline'), service: mediansOf(runs, 'service') };
  const rates = await rateRuns(targets, load, medians.baseline.reqPerSec, log);
  const p99HoldsUpTo = {
    baseline: highestRateUnder(rates, 'baseline', targetP99Ms),
    service: highestRateUnder(rates, 'service', targetP99Ms),
  };
  const ratios = roundRatios(runs, 'baseline', 'service', (r) => r.reqPerSec);
  const pairedRatio = fmt(median(ratios.filter((r) => !Number.isNaN(r))));
  const ratioOfMedians = fmt(medians.service.reqPerSec / medians.baseline.reqPerSec);
  const serviceFailures = failuresOf([...runs, ...rates], 'service');
  const meetsP99 = medians.service.p99Ms < targetP99Ms;
  log(
    `\n${runsTable(runs, ['baseline', 'service'])}\n\n` +
      `service/baseline req/s${baselineLabel === undefined ? '' : ` (baseline: ${baselineLabel})`}, median of paired rounds: ${pairedRatio.toFixed(3)} (per round ${ratios.join(', ')}); ` +
      `ratio of medians: ${ratioOfMedians.toFixed(3)}\n` +
      `service p99 (median of rounds): ${medians.service.p99Ms.toFixed(2)} ms at ${load.connections} connections; ` +
      `target < ${targetP99Ms} ms: ${meetsP99 ? 'meets' : 'ABOVE'}\n` +
      `service responses not 2xx: ${serviceFailures.non2xx}, socket errors/timeouts: ${serviceFailures.errors}`,
  );
  if (rates.length > 0)
    log(
      `\nfixed offered rates, ${load.connections} connections:\n${ratesTable(rates, targetP99Ms)}\n` +
        `service p99 < ${targetP99Ms} ms up to ${p99HoldsUpTo.service ?? 'none of the'} req/s offered ` +
        `(baseline: ${p99HoldsUpTo.baseline ?? 'none'})`,
    );
  return {
    runs,
    medians,
    rates,
    p99HoldsUpTo,
    roundRatios: ratios,
    pairedRatio,
    ratioOfMedians,
    targets: { p99Ms: targetP99Ms },
    meetsP99,
    serviceFailures,
  };
}
