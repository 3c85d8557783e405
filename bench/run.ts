/**
 * Benchmark runner: `npm run bench -- <scenario> [options]`. Each scenario is a module
 * bench/scenarios/<name>.ts exporting `scenario` (bench/lib/scenario.ts); see bench/README.md.
 */
import { markRunStart } from './lib/report.ts';
import { failureText, loadScenario as load, scenarioNames } from './lib/scenario.ts';

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
  process.stderr.write(`${failureText(error)}\n`);
  process.exitCode = 1;
}
