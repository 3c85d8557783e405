/**
 * Scenario `spread`: what V8 promotes when objects are built by a spread (decision 0251). Each way of
 * building one object per iteration runs in its own `node --trace-gc-nvp` process, which builds N of
 * them and drops each at once; the scavenges and the bytes they promoted are read from the trace. No
 * service, no database: it tells whether the Node version at hand still promotes spread objects.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { table } from '../lib/report.ts';
import { CHECK_USAGE, UsageError, type Scenario } from '../lib/scenario.ts';

const USAGE = `Usage: npm run bench -- spread [--objects N] [--fields N] [--check]

Builds N objects of F fields plus one, each dropped at once, four ways, each in its own
node --trace-gc-nvp process: a spread, Object.assign onto the object, Object.assign onto {}, and a
literal naming the fields. Prints scavenges and MB promoted to the old generation per way.
  --objects N      objects built per way (default 2000000)
  --fields N       fields of the object copied (default 8)
${CHECK_USAGE}`;

/** How each way builds its object from `made` (the F fields) and one field more. */
const WAYS = {
  spread: '({ ...made, extra: 1 })',
  'assign onto it': 'Object.assign(made, { extra: 1 })',
  'assign onto {}': 'Object.assign({}, made, { extra: 1 })',
  literal: '({ FIELDS, extra: 1 })',
} as const;

function program(way: string, objects: number, fields: number): string {
  const names = Array.from({ length: fields }, (_, k) => `f${k}`);
  const make = `(i) => ({ ${names.map((name, k) => `${name}: i + ${k}`).join(', ')} })`;
  const build = way.replace('FIELDS', names.map((name) => `${name}: made.${name}`).join(', '));
  return `const make = ${make}; let sink = 0;
for (let i = 0; i < ${objects}; i++) { const made = make(i); const built = ${build}; sink += built.f0 + built.extra; }
if (sink === 0) console.log('');`;
}

interface Promotion {
  way: string;
  scavenges: number;
  promotedMb: number;
}

function measure(way: keyof typeof WAYS, objects: number, fields: number): Promotion {
  const child = spawnSync(process.execPath, ['--trace-gc-nvp', '-e', program(WAYS[way], objects, fields)], {
    encoding: 'utf8',
    maxBuffer: 256 * 2 ** 20,
  });
  if (child.status !== 0) throw new Error(`the ${way} process failed: ${child.stderr}`);
  let scavenges = 0;
  let promoted = 0;
  for (const line of child.stdout.split('\n')) {
    if (!/ gc=s /.test(line)) continue;
    scavenges += 1;
    promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
  }
  return { way, scavenges, promotedMb: Number((promoted / 1e6).toFixed(2)) };
}

async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      objects: { type: 'string' },
      fields: { type: 'string' },
      check: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const objects = values.check ? 200_000 : Number(values.objects ?? 2_000_000);
  const fields = Number(values.fields ?? 8);
  if (!Number.isSafeInteger(objects) || objects < 1)
    throw new UsageError('--objects must be a positive integer');
  if (!Number.isSafeInteger(fields) || fields < 1 || fields > 200)
    throw new UsageError('--fields must be 1..200');
  const results = (Object.keys(WAYS) as (keyof typeof WAYS)[]).map((way) => measure(way, objects, fields));
  if (results.some((r) => r.scavenges === 0)) throw new Error('no scavenge read from a --trace-gc-nvp trace');
  process.stdout.write(
    `spread: ${objects} objects of ${fields} fields + 1 per way, Node ${process.version}\n\n` +
      `${table([['built as', 'scavenges', 'promoted MB'], ...results.map((r) => [r.way, r.scavenges, r.promotedMb])])}\n`,
  );
}

export const scenario: Scenario = {
  description:
    'What V8 promotes when objects are built by a spread vs Object.assign or a literal (decision 0251)',
  run,
  check: ['--check'],
};
