/**
 * Scenario `summary`: one page of results. Reads the latest result file of each scenario in
 * bench/results/ (bench/lib/report.ts `writeResult`; the verdict a scenario declares is its
 * `summary`, bench/lib/verdict.ts), prints one markdown table and rewrites the block between
 * `<!-- summary:start -->` and `<!-- summary:end -->` at the top of bench/README.md with it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { RESULTS_DIR } from '../lib/report.ts';
import { CHECK_USAGE, UsageError, type Scenario } from '../lib/scenario.ts';
import type { ScenarioSummary } from '../lib/verdict.ts';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const START = '<!-- summary:start -->';
const END = '<!-- summary:end -->';

/** The rows, in this order: each a result-file prefix (properties-scale writes one per mode). */
const ROWS = [
  'me',
  'properties',
  'properties-scale-tenants',
  'properties-scale-agency',
  'contacts',
  'property-detail',
  'finder',
  'leads',
  'fanout',
  'webhooks',
  'cache',
  'memory',
  'request-log',
  'listing-media',
];

const USAGE = `Usage: npm run bench -- summary [--no-write] [--results DIR] [--check]

Reads the latest bench/results/<scenario>-<timestamp>.json of each scenario with a target, prints one
markdown table (baseline, median paired ratio, p50/p99 at 75 % load, target, met / NOT MET, date,
commit and load average before the run) and rewrites the block between ${START} and ${END} at the
top of bench/README.md (--no-write: print only; --results DIR: read DIR instead of bench/results).
${CHECK_USAGE}
                   (the table of an empty and of a one-file results directory; bench/README.md's
                   block found and read; nothing written)`;

interface ResultFile {
  startedAt?: string;
  before?: { at: string; loadAverage1m: number; gitCommit: string };
  machine?: { loadAverageAtStart?: number[]; gitCommit?: string };
  summary?: ScenarioSummary;
}

const STAMP = /^(.+)-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)\.json$/;

/** The newest result file of each prefix (the timestamps sort as text). */
function latestFiles(dir: string): Map<string, string> {
  const latest = new Map<string, string>();
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // No results yet: every row says "not run".
  }
  for (const file of names.sort()) {
    const match = STAMP.exec(file);
    if (match?.[1]) latest.set(match[1], file);
  }
  return latest;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');
const ms = (value: number | null) => (value === null ? '–' : value.toFixed(value < 10 ? 2 : 1));

function verdictOf(summary: ScenarioSummary): string {
  if (summary.met === true) return 'met';
  if (summary.met === false) return '**NOT MET**';
  return 'not judged (no 75 % run)';
}

/**
 * The rows of the table now in bench/README.md, by scenario name: bench/results/ is not committed, so
 * a scenario measured on an earlier machine keeps its row (its date, file and commit say when) until
 * it runs here.
 */
export function previousRows(readme: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) return rows;
  for (const line of readme.slice(start, end).split('\n')) {
    if (!line.startsWith('|')) continue;
    const cells = line
      .slice(1, line.trimEnd().endsWith('|') ? line.trimEnd().length - 1 : undefined)
      .split(/(?<!\\)\|/)
      .map((text) => text.trim().replace(/\\\|/g, '|'));
    const name = cells[0];
    if (name && name !== 'scenario' && !/^-+$/.test(name) && cells[5] !== 'not run') rows.set(name, cells);
  }
  return rows;
}

function rowOf(
  dir: string,
  prefix: string,
  file: string | undefined,
  previous: Map<string, string[]>,
): string[] {
  const name = prefix.replace(/^properties-scale-(\w+)$/, 'properties-scale ($1)');
  if (file === undefined) return previous.get(name) ?? [name, '', '', '', '', 'not run', '', '', ''];
  const result = JSON.parse(readFileSync(join(dir, file), 'utf8')) as ResultFile;
  const date = (result.startedAt ?? result.before?.at ?? '').replace('T', ' ').slice(0, 16);
  const commit = result.before?.gitCommit ?? result.machine?.gitCommit ?? '?';
  // Files written before `before` existed carry the load average at the end of the run.
  const load =
    result.before !== undefined
      ? String(result.before.loadAverage1m)
      : `${result.machine?.loadAverageAtStart?.[0] ?? '?'} (at end)`;
  const when = [`${date} \`${file.replace(/\.json$/, '')}\``, commit, load];
  const s = result.summary;
  if (s === undefined)
    return [name, '', '', '', '', 'no summary in this (older) result file: rerun', ...when];
  const ratio = s.ratio === null ? '–' : `${s.ratio}${s.ratioOf ? ` (${s.ratioOf})` : ''}`;
  const latency =
    s.p50At75 === null && s.p99At75 === null
      ? `–${s.latencyNote ? ` (${s.latencyNote})` : ''}`
      : `${ms(s.p50At75)} / ${ms(s.p99At75)} ms${s.latencyNote ? ` (${s.latencyNote})` : ''}`;
  return [name, s.baseline, ratio, latency, s.targetText, verdictOf(s), ...when];
}

export function summaryTable(dir = RESULTS_DIR, previous = new Map<string, string[]>()): string {
  const latest = latestFiles(dir);
  const header = [
    'scenario',
    'compared with',
    'median paired ratio',
    'p50 / p99 at 75 % load',
    'target',
    'verdict',
    'run (UTC) and result file',
    'commit',
    'load avg (1 min) before',
  ];
  const rows = ROWS.map((prefix) => rowOf(dir, prefix, latest.get(prefix), previous));
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * `--check`: the table from a temporary results directory, empty (every row "not run") and then
 * holding one result file (its row carries its verdict), and the rows of bench/README.md's block.
 */
function check(): void {
  const dir = mkdtempSync(join(tmpdir(), 'bench-summary-check-'));
  try {
    const rowsOf = (table: string) => table.split('\n').slice(2);
    const empty = rowsOf(summaryTable(dir));
    if (empty.length !== ROWS.length || !empty.every((row) => row.includes('| not run |')))
      throw new Error(
        `the table of an empty results directory is not ${ROWS.length} "not run" rows:\n${empty.join('\n')}`,
      );
    const summary: ScenarioSummary = {
      baseline: 'bare Fastify route',
      ratio: 0.5,
      targetText: 'service/baseline ≥ 0.8',
      met: false,
      p50At75: null,
      p99At75: null,
      latencyNote: 'closed loop only',
    };
    writeFileSync(
      join(dir, 'me-2026-01-02T03-04-05-006Z.json'),
      JSON.stringify({
        startedAt: '2026-01-02T03:04:05.006Z',
        before: { at: '2026-01-02T03:04:05.006Z', loadAverage1m: 0.5, gitCommit: 'abc1234' },
        summary,
      }),
    );
    const [me] = rowsOf(summaryTable(dir));
    for (const expected of ['| me |', '| 0.5 |', '**NOT MET**', '`me-2026-01-02T03-04-05-006Z`', 'abc1234'])
      if (!me?.includes(expected)) throw new Error(`the row of a result file lacks ${expected}: ${me}`);
    const readme = readFileSync(README, 'utf8');
    if (readme.indexOf(START) < 0 || readme.indexOf(END) < readme.indexOf(START))
      throw new Error(`bench/README.md has no ${START} ... ${END} block`);
    const previous = previousRows(readme);
    process.stdout.write(
      `checked: the table of an empty results directory (${ROWS.length} rows "not run") and of one result file ` +
        `(its verdict, file and commit); bench/README.md's block holds ${previous.size} rows of earlier runs; nothing written\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function run(args: string[]): Promise<void> {
  let options: { 'no-write'?: boolean; results?: string; check?: boolean; help?: boolean };
  try {
    ({ values: options } = parseArgs({
      args,
      strict: true,
      options: {
        'no-write': { type: 'boolean' },
        results: { type: 'string' },
        check: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${USAGE}`);
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (options.check) {
    check();
    return;
  }
  const block =
    `${START}\n\n` +
    `Latest result of each scenario (\`npm run bench -- summary\` writes this table from bench/results/; ` +
    `ratios are service ÷ what it is compared with, medians of paired rounds; "load avg" is the machine's ` +
    `1-minute load average as the run started — above ~1 on these 2 cores, other work shared the machine). ` +
    `bench/results/ is not committed: a scenario with no result file on this machine keeps the row of its ` +
    `last run (its date, file and commit say which); "not run": never run since the table exists; the ` +
    `sections below keep the figures of earlier runs, with their dates.\n\n` +
    `${summaryTable(options.results ?? RESULTS_DIR, previousRows(readFileSync(README, 'utf8')))}\n\n${END}`;
  process.stdout.write(`${block}\n`);
  if (options['no-write']) return;
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`bench/README.md has no ${START} ... ${END} block`);
  const replaced = `${readme.slice(0, start)}${block}${readme.slice(end + END.length)}`;
  // Formatted as `npm run lint` checks it (prettier aligns the table).
  const formatted = await format(replaced, { ...(await resolveConfig(README)), filepath: README });
  writeFileSync(README, formatted);
  process.stdout.write(`rewritten: the summary block of ${README}\n`);
}

export const scenario: Scenario = {
  description: 'one page of results: the latest run of each scenario with its verdict, into bench/README.md',
  run,
  check: ['--check'],
};
