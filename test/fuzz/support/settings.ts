/**
 * How much the hostile-input fuzz runs. The defaults are the CI size (part of `npm test`, a fixed
 * seed, so a failure reproduces); the long run raises FUZZ_RUNS (docs/reliability.md).
 *
 *   FUZZ_RUNS=2000 npx vitest run test/fuzz       requests per operation (default 12)
 *   FUZZ_SEED=123                                  another seed (default fixed)
 *   FUZZ_ONLY=contacts                             only operations whose operationId contains this
 *   FUZZ_TIME_LIMIT_MS=10000                       longest answer accepted (a shared 2-core CI machine)
 *   FUZZ_REPORT=1                                  print the status histogram of every operation
 */
function integer(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

export const FUZZ_RUNS = integer('FUZZ_RUNS', 12);
export const FUZZ_SEED = integer('FUZZ_SEED', 20_260_709);
export const FUZZ_TIME_LIMIT_MS = integer('FUZZ_TIME_LIMIT_MS', 10_000);
export const FUZZ_ONLY = process.env.FUZZ_ONLY ?? '';
export const FUZZ_REPORT = process.env.FUZZ_REPORT === '1' || process.env.FUZZ_RUNS !== undefined;

/** The long run must not trip vitest's per-test limit before fast-check reports its seed. */
export function testTimeoutMs(runs: number): number {
  return Math.max(120_000, runs * FUZZ_TIME_LIMIT_MS);
}
