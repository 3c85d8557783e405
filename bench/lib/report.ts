import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** bench/results/, or BENCH_RESULTS_DIR (the guard's short runs write elsewhere: `summary` reads this one). */
export const RESULTS_DIR =
  process.env.BENCH_RESULTS_DIR || fileURLToPath(new URL('../results', import.meta.url));

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  kernel: string;
  node: string;
  /** 1, 5 and 15-minute load averages when the run started (`markRunStart`). */
  loadAverageAtStart: number[];
  gitCommit: string;
}

/** What the runner records just before a scenario runs; every result file carries it (`before`). */
export interface RunStart {
  at: string;
  /** The machine's 1-minute load average (os.loadavg()[0]). */
  loadAverage1m: number;
  loadAverage: number[];
  /** Short hash of HEAD, with `+dirty` when the work tree has changes (untracked files included). */
  gitCommit: string;
}

export function gitCommit(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit}+dirty` : commit;
  } catch {
    return 'unknown';
  }
}

const loadAverages = () => loadavg().map((value) => Number(value.toFixed(2)));

let runStart: RunStart | null = null;

/** Records the load average and the commit before the scenario starts (bench/run.ts calls it). */
export function markRunStart(): RunStart {
  const loadAverage = loadAverages();
  runStart = {
    at: new Date().toISOString(),
    loadAverage1m: loadAverage[0] ?? 0,
    loadAverage,
    gitCommit: gitCommit(),
  };
  return runStart;
}

export function machine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    node: process.version,
    loadAverageAtStart: runStart?.loadAverage ?? loadAverages(),
    gitCommit: runStart?.gitCommit ?? gitCommit(),
  };
}

/** A plain text table: the first row is the header; columns holding only numbers are right-aligned. */
export function table(rows: Array<Array<string | number>>): string {
  const cells = rows.map((row) => row.map((cell) => String(cell)));
  const [header = [], ...body] = cells;
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]?.length ?? 0)));
  const numeric = header.map((_, column) => body.every((row) => /^(-?[\d.]+)?$/.test(row[column] ?? '')));
  const line = (row: string[]) =>
    row
      .map((cell, column) =>
        numeric[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(line)].join('\n');
}

/**
 * Writes bench/results/<scenario>-<timestamp>.json and returns its path. The file starts with
 * `before` (load average and commit when the run started, for `npm run bench -- summary`), then
 * the scenario's own result (with `summary` where the scenario has a target: bench/lib/verdict.ts).
 */
export function writeResult(scenario: string, startedAt: Date, result: object): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const path = join(RESULTS_DIR, `${scenario}-${stamp}.json`);
  const before = runStart ?? markRunStart();
  writeFileSync(path, `${JSON.stringify({ before, ...result }, null, 2)}\n`);
  return path;
}
