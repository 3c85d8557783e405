/**
 * Scenario `check`: every scenario's correctness check on a tiny data set (`<name> <its check
 * arguments>`), N at a time: bodies identical to the baseline's, answers 2xx, the scenario's own
 * assertions. CI runs it, so a scenario whose baseline drifts from the service fails the build instead
 * of the next person who measures.
 *
 * The checks run in this process, not one runner process each: every scenario imports the service's
 * modules (src/features.ts and the rest), and loading them through tsx cost each of the ~20 runner
 * processes 3-4 s of CPU, a minute of CI's two cores in all (decision 0257). What a check starts (the
 * service, the baseline) is still a process of its own. Each check's output is kept apart (by its
 * async context) and printed when it fails.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { parseArgs } from 'node:util';
import {
  failureText,
  loadScenario,
  positive,
  scenarioNames,
  UsageError,
  type Scenario,
} from '../lib/scenario.ts';

/** A check that takes longer has hung: it seeds a tiny data set and sends a few requests. */
const CHECK_TIMEOUT_MS = 180_000;
/** What is kept of a check's output, its end, to print when it fails. */
const KEPT_OUTPUT = 6_000;

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- check [--parallel N] [names...]

Runs the correctness check of every scenario (or of those named), N at a time (default 1; they check
answers, not speed, so they may share the cores), and fails when one fails. Without DATABASE_URL the
scenarios that need PostgreSQL fail.`;

/** The running check's output, by async context; writes outside any check pass through. */
const outputs = new AsyncLocalStorage<{ text: string }>();

function keepOutputApart(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    const kept = outputs.getStore();
    if (kept === undefined) return write(chunk, ...rest);
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    kept.text = (kept.text + text).slice(-KEPT_OUTPUT);
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof stream.write;
}

/** Runs one scenario's check here; resolves with whether it passed and its output's last lines. */
async function runCheck(
  scenario: Scenario,
  args: readonly string[],
): Promise<{ passed: boolean; tail: string }> {
  const kept = { text: '' };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no end after ${CHECK_TIMEOUT_MS / 1000} s`)),
      CHECK_TIMEOUT_MS,
    );
  });
  let passed = true;
  try {
    await outputs.run(kept, () => Promise.race([scenario.run([...args]), timeout]));
  } catch (error) {
    passed = false;
    kept.text += `\n${failureText(error)}`;
  } finally {
    clearTimeout(timer);
  }
  return { passed, tail: kept.text.trim().split('\n').slice(-25).join('\n') };
}

async function run(args: string[]): Promise<void> {
  let positionals: string[];
  let help = false;
  let parallel = 1;
  try {
    const parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { help: { type: 'boolean', short: 'h' }, parallel: { type: 'string' } },
    });
    positionals = parsed.positionals;
    help = parsed.values.help === true;
    parallel = positive('parallel', parsed.values.parallel, 1, 1);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${USAGE}`);
  }
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const all = scenarioNames();
  const unknown = positionals.filter((name) => !all.includes(name));
  if (unknown.length > 0) throw new UsageError(`unknown scenario ${unknown.join(', ')}\n\n${USAGE}`);
  const chosen = positionals.length > 0 ? positionals : all;
  const failed: string[] = [];
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const queue = [...chosen];
  keepOutputApart(process.stdout);
  keepOutputApart(process.stderr);
  const next = async (): Promise<void> => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const scenario = await loadScenario(name);
      const { check } = scenario;
      if (!Array.isArray(check)) {
        log(`- ${name}: no check (${(check as { none: string }).none})`);
        continue;
      }
      const started = performance.now();
      const { passed, tail } = await runCheck(scenario, check);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      if (passed) {
        log(`ok ${name} (${seconds} s)`);
      } else {
        failed.push(name);
        log(`FAILED ${name} (${seconds} s):\n${tail.replace(/^/gm, '    ')}`);
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, next));
  // A scenario reports a failed measurement by the exit code; none should in a check, but one that
  // does fails the run rather than pass unseen.
  if (process.exitCode !== undefined && process.exitCode !== 0) {
    log('\na check set a non-zero exit code');
    failed.push('(exit code)');
  }
  if (failed.length > 0) {
    log(`\n${failed.length} scenario check(s) failed: ${failed.join(', ')}`);
  } else {
    log('\nevery scenario check passed');
  }
  // A check that timed out may have left its servers and timers running: end here either way.
  process.exit(failed.length > 0 ? 1 : 0);
}

export const scenario: Scenario = {
  description: "every scenario's correctness check on a tiny data set (CI)",
  run,
  check: { none: 'it runs the others' },
};
