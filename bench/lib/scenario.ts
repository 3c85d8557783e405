import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake on the command line: the runner prints the message alone, without a stack. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** How a scenario's failure is told: a UsageError by its message alone, anything else with its stack. */
export function failureText(error: unknown): string {
  if (error instanceof UsageError) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** What every bench/scenarios/<name>.ts exports as `scenario`. */
export interface Scenario {
  description: string;
  /** `args` are the command-line arguments after the scenario name. */
  run(args: string[]): Promise<void>;
  /**
   * The arguments that run only its correctness check, on a tiny data set (same answers as the
   * baseline's, every answer 2xx), as `npm run bench -- check` does for every scenario (CI); null for
   * a scenario that measures nothing (`summary`, `check`), with the reason.
   */
  check: readonly string[] | { none: string };
}

const SCENARIOS_DIR = new URL('../scenarios/', import.meta.url);

/** The scenarios' names: the modules of bench/scenarios/, sorted. */
export function scenarioNames(): string[] {
  return readdirSync(fileURLToPath(SCENARIOS_DIR))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => file.slice(0, -'.ts'.length))
    .sort();
}

/** The `scenario` a bench/scenarios/<name>.ts exports. */
export async function loadScenario(name: string): Promise<Scenario> {
  const module = (await import(new URL(`${name}.ts`, SCENARIOS_DIR).href)) as { scenario?: Scenario };
  if (!module.scenario) throw new Error(`bench/scenarios/${name}.ts does not export a scenario`);
  return module.scenario;
}

/** `--check`'s help line, for every scenario's usage. */
export const CHECK_USAGE = `  --check          only the correctness check, on a tiny data set, with no load (what CI runs)`;

export interface LoadArguments {
  connections: number;
  durationS: number;
  warmupS: number;
  rounds: number;
  /** Run the servers under `node --cpu-prof` (profiles in bench/results/profiles). */
  profile: boolean;
  /**
   * Fixed offered rates measured after the rounds (each target once per rate, same connections):
   * a number is req/s, a fraction (`0.5`) is that share of the baseline's median maximum.
   */
  rates: RateSpec[];
  /** `--check`: the correctness check only, on a tiny data set; no load, no result file. */
  check: boolean;
}

export type RateSpec = { perSecond: number } | { ofBaseline: number };

// 10 s of warm-up: with 3 s the service (far more code than the bare route) was still getting faster
// from one round to the next; with 10 s its rounds are flat.
const DEFAULTS: LoadArguments = {
  connections: 50,
  durationS: 10,
  warmupS: 10,
  rounds: 5,
  profile: false,
  rates: [{ ofBaseline: 0.25 }, { ofBaseline: 0.5 }, { ofBaseline: 0.75 }],
  check: false,
};

export const LOAD_USAGE = `  --connections N  concurrent connections (default ${DEFAULTS.connections})
  --duration S     seconds measured per run (default ${DEFAULTS.durationS})
  --warmup S       seconds of discarded load before each run (default ${DEFAULTS.warmupS})
  --rounds N       rounds of (baseline, service) (default ${DEFAULTS.rounds})
  --profile        run both servers under node --cpu-prof (bench/results/profiles/)
  --rates LIST     fixed offered rates measured after the rounds, each target once per rate: req/s
                   (400) or a share of the baseline's median maximum (50%; the service's own where a
                   scenario has no baseline); 'none' skips them
                   (default 25%,50%,75%)
${CHECK_USAGE}`;

function parseRates(raw: string | undefined): RateSpec[] {
  if (raw === undefined) return DEFAULTS.rates;
  if (raw === 'none') return [];
  return raw.split(',').map((item) => {
    const percent = /^(\d+(?:\.\d+)?)%$/.exec(item.trim());
    if (percent) {
      const share = Number(percent[1]) / 100;
      if (share > 0 && share <= 2) return { ofBaseline: share };
    } else if (/^\d+$/.test(item.trim()) && Number(item) > 0) {
      return { perSecond: Number(item) };
    }
    throw new UsageError(
      `--rates takes req/s (400) or shares of the baseline (50%), comma-separated; got ${item}`,
    );
  });
}

export function positive(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new UsageError(`--${name} must be a whole number >= ${min}, got ${raw}`);
  return value;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses the options every load scenario shares (same names as autocannon's where they exist)
 * plus the scenario's own `extra` ones, returned raw in `values`. `--help` is always accepted.
 */
export function parseLoadArguments(args: string[], extra: Options = {}) {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        ...extra,
        connections: { type: 'string', short: 'c' },
        duration: { type: 'string', short: 'd' },
        warmup: { type: 'string' },
        rounds: { type: 'string' },
        profile: { type: 'boolean' },
        rates: { type: 'string' },
        check: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }) as { values: Record<string, string | boolean | undefined> });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (--help lists the options)`);
  }
  const text = (name: string) => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const load: LoadArguments = {
    connections: positive('connections', text('connections'), DEFAULTS.connections, 1),
    durationS: positive('duration', text('duration'), DEFAULTS.durationS, 1),
    warmupS: positive('warmup', text('warmup'), DEFAULTS.warmupS, 0),
    rounds: positive('rounds', text('rounds'), DEFAULTS.rounds, 1),
    profile: values.profile === true,
    rates: parseRates(text('rates')),
    check: values.check === true,
  };
  return { load, help: values.help === true, text, positive };
}

export interface ScaleArguments {
  orgs: number;
  perOrg: number;
  keys: number;
  /** A database made by `npm run bench -- generate` to run on instead of loading a fresh one. */
  database?: string;
}

export const DATABASE_USAGE = `  --database NAME  run on database NAME made by \`npm run bench -- generate\` (kept; --orgs and
                   --per-org are then its own) instead of loading a fresh one`;

/** The data set of `--check` unless given: two organizations of 60 listings, one key each. */
export const CHECK_SCALE: ScaleArguments = { orgs: 2, perOrg: 60, keys: 2 };

/**
 * The load options plus `--orgs`, `--per-org`, `--keys` and `--database` of the data-set scenarios;
 * with `--check` the defaults are `checkScale`'s.
 */
export function parseScaleArguments(
  args: string[],
  defaults: ScaleArguments,
  extra: Options = {},
  checkScale: ScaleArguments = CHECK_SCALE,
) {
  const { load, help, text } = parseLoadArguments(args, {
    ...extra,
    orgs: { type: 'string' },
    'per-org': { type: 'string' },
    keys: { type: 'string' },
    database: { type: 'string' },
  });
  const base = load.check ? checkScale : defaults;
  const scale: ScaleArguments = {
    orgs: positive('orgs', text('orgs'), base.orgs, 1),
    perOrg: positive('per-org', text('per-org'), base.perOrg, 1),
    keys: positive('keys', text('keys'), base.keys, 1),
    database: text('database'),
  };
  return { load, help, scale, text };
}

/** Which baseline a "service vs baseline" scenario measures against (`--baseline`). */
export type BaselineKind = 'sql' | 'self';

export const BASELINE_USAGE = `  --baseline K     sql: a hand-written bare route on pg, its own SQL and mapping, no service code
                   (default); self: the service's own function on a plain pool (the older figure:
                   same code minus auth and limits; the listing's reads its organization's settings
                   in a tenant transaction, as the service does)`;

export function baselineKind(raw: string | undefined): BaselineKind {
  if (raw === undefined || raw === 'sql' || raw === 'self') return raw ?? 'sql';
  throw new UsageError(`--baseline takes sql or self, got ${raw}`);
}
