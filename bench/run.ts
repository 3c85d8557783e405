/**
 * Benchmark runner: `npm run bench -- <scenario> [options]`. Each scenario is a module
 * bench/scenarios/<name>.ts exporting `scenario` (bench/lib/scenario.ts); see bench/README.md.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { markRunStart } from './lib/report.ts';
import { UsageError, type Scenario } from './lib/scenario.ts';

const SCENARIOS_DIR = new URL('./scenarios/', import.meta.url);

function scenarioNames(): string[] {
  return readdirSync(fileURLToPath(SCENARIOS_DIR))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => file.slice(0, -'.ts'.length))
    .sort();
}

async function load(name: string): Promise<Scenario> {
  const module = (await import(new URL(`${name}.ts`, SCENARIOS_DIR).href)) as { scenario?: Scenario };
  if (!module.scenario) throw new Error(`bench/scenarios/${name}.ts does not export a scenario`);
  return module.scenario;
}

async function usage(): Promise<string> {
  const lines = ['Usage: npm run bench -- <scenario> [options]', '', 'Scenarios:'];
  for (const name of scenarioNames()) lines.push(`  ${name.padEnd(16)} ${(await load(name)).description}`);
  lines.push('', 'npm run bench -- <scenario> --help lists its options.');
  return lines.join('\n');
}

async function main() {
  const [name, ...args] = process.argv.slice(2);
  if (name === undefined || name === '--help' || name === '-h') {
    process.stdout.write(`${await usage()}\n`);
    process.exitCode = name === undefined ? 1 : 0;
    return;
  }
  if (!scenarioNames().includes(name)) {
    process.stderr.write(`Unknown scenario "${name}".\n\n${await usage()}\n`);
    process.exitCode = 1;
    return;
  }
  const scenario = await load(name);
  // The load average and the commit as the run starts: every result file carries them (`before`).
  markRunStart();
  await scenario.run(args);
}

try {
  await main();
} catch (error) {
  const text =
    error instanceof UsageError
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
  process.stderr.write(`${text}\n`);
  process.exitCode = 1;
}
