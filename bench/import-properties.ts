/**
 * `node --import tsx bench/import-properties.ts [--rows 10000] [--batch-size 500] [--pglite]`
 *
 * Times `agency-crm import properties` end to end: generates a CSV of --rows realistic properties
 * in a temp dir, starts the real service (bench/lib/service-server.ts) on a fresh PostgreSQL
 * database (created on 127.0.0.1:5432 as postgres, dropped at the end; `--pglite` uses the
 * embedded database instead), creates an organization and 4 agents, then runs the CLI three times:
 * a first import (every row created), the same file again (every row unchanged), and the file
 * with every price changed (every row updated). Each time it checks the CLI's counts and prints
 * the wall time, CLI start-up included. Target (issue 3): 10k rows in under a minute on PostgreSQL.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { startChild } from './lib/child.ts';
import { BENCH_ADMIN_TOKEN } from './lib/protocol.ts';
// Deterministic pseudo-random numbers, so every run imports the same file.
import { prng } from './lib/scale-recipes.ts';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '10000' },
    'batch-size': { type: 'string', default: '500' },
    pglite: { type: 'boolean', default: false },
  },
});
const ROWS = Number(values.rows);
const BATCH_SIZE = values['batch-size'] as string;

const CITIES = [
  { city: 'Málaga', lat: 36.7213, lng: -4.4214, hoods: ['Centro', 'Soho', 'El Limonar', 'Teatinos'] },
  { city: 'Madrid', lat: 40.4168, lng: -3.7038, hoods: ['Malasaña', 'Chamberí', 'Salamanca', 'Lavapiés'] },
  { city: 'Barcelona', lat: 41.3874, lng: 2.1686, hoods: ['Gràcia', 'Eixample', 'El Born', 'Poblenou'] },
  { city: 'Valencia', lat: 39.4699, lng: -0.3763, hoods: ['Ruzafa', 'El Carmen', 'Benimaclet'] },
  { city: 'Sevilla', lat: 37.3891, lng: -5.9845, hoods: ['Triana', 'Santa Cruz', 'Nervión'] },
];
const TYPES = ['APARTMENT', 'HOUSE', 'STUDIO', 'PENTHOUSE', 'DUPLEX'];
const AMENITIES = ['elevator', 'terrace', 'parking', 'pool', 'airConditioning', 'furnished', 'petFriendly'];

const quote = (value: string) => (/[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

function csvOf(rows: number, agentIds: string[], priceFactor: number): string {
  const random = prng(42);
  const header =
    'code,title,description,transactionType,type,price,city,neighborhood,address,zipCode,latitude,longitude,' +
    'approximateLocation,bedrooms,bathrooms,area,amenities,photos,agentId,custom.reference';
  const lines = [header];
  for (let i = 1; i <= rows; i++) {
    const place = CITIES[i % CITIES.length] as (typeof CITIES)[number];
    const hood = place.hoods[Math.floor(random() * place.hoods.length)] as string;
    const type = TYPES[Math.floor(random() * TYPES.length)] as string;
    const rent = random() < 0.3;
    const bedrooms = 1 + Math.floor(random() * 4);
    const area = 40 + Math.round(random() * 160);
    const price = Math.round((rent ? 600 + area * 9 : 90000 + area * 2600) * priceFactor);
    const code = `BENCH-${String(i).padStart(6, '0')}`;
    const photos = [1, 2, 3]
      .map((n) => `https://picsum.photos/seed/${code}-${n}/800/600|Photo ${n} of ${code}`)
      .join(';');
    const amenities = AMENITIES.filter(() => random() < 0.35).join(';');
    lines.push(
      [
        code,
        quote(
          `${type === 'STUDIO' ? 'Studio' : `${bedrooms}-bedroom ${type.toLowerCase()}`} in ${hood}, ${place.city}`,
        ),
        quote(
          `Bright ${type.toLowerCase()} of ${area} m² in ${hood}, close to shops and transport.\nRenovated, ready to move in.`,
        ),
        rent ? 'RENT' : 'SALE',
        type,
        String(price),
        place.city,
        quote(hood),
        quote(`Calle Mayor ${1 + (i % 200)}, ${1 + (i % 6)}º`),
        String(10000 + (i % 40000)).padStart(5, '0'),
        (place.lat + (random() - 0.5) * 0.06).toFixed(5),
        (place.lng + (random() - 0.5) * 0.06).toFixed(5),
        random() < 0.15 ? 'yes' : 'no',
        String(type === 'STUDIO' ? 0 : bedrooms),
        String(1 + Math.floor(bedrooms / 2)),
        String(area),
        amenities,
        quote(photos),
        agentIds[i % agentIds.length] as string,
        `REF-${i}`,
      ].join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}

async function admin<T>(baseUrl: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as { data: T };
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json.data;
}

interface CliSummary {
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

async function timedImport(baseUrl: string, file: string, orgId: string) {
  const started = performance.now();
  const { stdout } = await run(
    process.execPath,
    [
      'bin/agency-crm.mjs',
      'import',
      'properties',
      file,
      '--org',
      orgId,
      '--batch-size',
      BATCH_SIZE,
      '--json',
    ],
    {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ADMIN_TOKEN: BENCH_ADMIN_TOKEN, AGENCY_CRM_URL: baseUrl },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const seconds = (performance.now() - started) / 1000;
  return { seconds, summary: JSON.parse(stdout) as CliSummary };
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'agency-import-bench-'));
  const dbName = `agency_bench_import_${process.pid}`;
  const databaseUrl = values.pglite ? undefined : `postgres://postgres@127.0.0.1:5432/${dbName}`;
  if (databaseUrl) await run('createdb', ['-h', '127.0.0.1', '-p', '5432', '-U', 'postgres', dbName]);
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;

  const server = await startChild({
    name: 'service',
    entry: fileURLToPath(new URL('./lib/service-server.ts', import.meta.url)),
    options: {},
    env,
  });
  try {
    const { info } = server;
    const org = await admin<{ id: string }>(server.url, 'POST', '/admin/v1/organizations', {
      name: 'Import Bench Realty',
      plan: 'ENTERPRISE',
      defaultCountry: 'ES',
      defaultCurrency: 'EUR',
    });
    const agentIds: string[] = [];
    for (const firstName of ['Lucía', 'Javier', 'Marta', 'Pablo']) {
      agentIds.push(
        (
          await admin<{ id: string }>(server.url, 'POST', `/admin/v1/organizations/${org.id}/agents`, {
            firstName,
          })
        ).id,
      );
    }
    const file = join(dir, 'properties.csv');
    await writeFile(file, csvOf(ROWS, agentIds, 1));
    const changed = join(dir, 'properties-changed.csv');
    await writeFile(changed, csvOf(ROWS, agentIds, 1.05));

    console.log(
      `import of ${ROWS} rows (batch size ${BATCH_SIZE}) on ${String(info.database)} ${String(info.databaseVersion).split(' ').slice(0, 2).join(' ')}`,
    );
    const runs: [string, string, keyof CliSummary][] = [
      ['first import', file, 'created'],
      ['same file again', file, 'unchanged'],
      ['every price changed', changed, 'updated'],
    ];
    let ok = true;
    for (const [label, path, expected] of runs) {
      const { seconds, summary } = await timedImport(server.url, path, org.id);
      const good = summary[expected] === ROWS && summary.failed === 0;
      ok &&= good;
      console.log(
        `  ${label.padEnd(20)} ${seconds.toFixed(1).padStart(6)} s  ${Math.round(ROWS / seconds)
          .toString()
          .padStart(6)} rows/s  created ${summary.created}, updated ${summary.updated}, ` +
          `unchanged ${summary.unchanged}, failed ${summary.failed}${good ? '' : `  <- expected ${ROWS} ${expected}`}`,
      );
    }
    process.exitCode = ok ? 0 : 1;
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
    if (databaseUrl) {
      await run('dropdb', ['--if-exists', '-h', '127.0.0.1', '-p', '5432', '-U', 'postgres', dbName]).catch(
        () => console.error(`could not drop database ${dbName} (drop it by hand)`),
      );
    }
  }
}

await main();
