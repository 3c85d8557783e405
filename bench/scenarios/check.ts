/**
 * Scenario `check`: every scenario's correctness check on a tiny data set, each in its own process
 * (`npm run bench -- <name> <its check arguments>`), one after the other: bodies identical to the
 * baseline's, answers 2xx, the scenario's own assertions. CI runs it, so a scenario whose baseline
 * drifts from the service fails the build instead of the next person who measures.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadScenario, positive, scenarioNames, UsageError, type Scenario } from '../lib/scenario.ts';

const RUNNER = fileURLToPath(new URL('../run.ts', import.meta.url));
/** A check that takes longer has hung: it seeds a tiny data set and sends a few requests. */
const CHECK_TIMEOUT_MS = 180_000;

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- check [--parallel N] [names...]

Runs the correctness check of every scenario (or of those named), each in its own process, N at a time
(default 1; they check answers, not speed, so they may share the cores), and fails when one fails.
Without DATABASE_URL the scenarios that need PostgreSQL fail.`;

/** Runs one scenario's check; resolves with its exit code and its output's last lines. */
function runCheck(name: string, args: readonly string[]): Promise<{ code: number; tail: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, name, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
      detached: true,
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-6_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      output += `\n(no end after ${CHECK_TIMEOUT_MS / 1000} s: killed)`;
      // The scenario's own children (service, baseline) are in its process group.
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, CHECK_TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 1 : 0), tail: output.split('\n').slice(-25).join('\n') });
    });
  });
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
  const next = async (): Promise<void> => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const { check } = await loadScenario(name);
      if (!Array.isArray(check)) {
        log(`- ${name}: no check (${(check as { none: string }).none})`);
        continue;
      }
      const started = performance.now();
      const { code, tail } = await runCheck(name, check);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      if (code === 0) {
        log(`ok ${name} (${seconds} s)`);
      } else {
        failed.push(name);
        log(`FAILED ${name} (${seconds} s, exit ${code}):\n${tail.replace(/^/gm, '    ')}`);
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, next));
  if (failed.length > 0) {
    process.exitCode = 1;
    log(`\n${failed.length} scenario check(s) failed: ${failed.join(', ')}`);
  } else {
    log('\nevery scenario check passed');
  }
}

export const scenario: Scenario = {
  description: "every scenario's correctness check on a tiny data set (CI)",
  run,
  check: { none: 'it runs the others' },
};
