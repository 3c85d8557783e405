import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../helpers/factories.ts';
import { admin, expectStatus } from '../helpers/http.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { cli, cliProcess, expectExit, REPO_ROOT } from './support.ts';

let app: FastifyInstance;
let baseUrl: string;
let dir: string;

async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

interface AdminProperty {
  code: string;
  title: string;
  description: string;
  price: number;
  amenities: string[];
  photos: { url: string; caption: string | null }[];
  coordinates: { latitude: number; longitude: number } | null;
  customFields: Record<string, unknown>;
  featured: boolean;
  publishedOnPortal: boolean;
  address: string | null;
}

async function propertiesOf(orgId: string): Promise<Map<string, AdminProperty>> {
  const list = expectStatus(
    await admin(app, 'GET', `/admin/v1/organizations/${orgId}/properties?pageSize=100`),
    200,
  );
  return new Map(list.data.map((p: AdminProperty) => [p.code, p]));
}

beforeAll(async () => {
  app = await buildTestApp();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  baseUrl = `http://127.0.0.1:${address.port}`;
  dir = await mkdtemp(join(tmpdir(), 'agency-import-'));
});

afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// BOM, CRLF line ends, a quoted field with a comma, doubled quotes and a line break (so record 3
// starts on line 3 but record 4 on line 5), a photos cell in JSON form, header names in other
// spellings, and two bad rows: line 5 (price with a thousands separator) and line 7 (unknown type).
const TRICKY_CSV =
  '\uFEFF' +
  [
    'Code,Title,description,transaction_type,type,price,city,neighborhood,latitude,longitude,amenities,photos,featured,custom.floor',
    'CSV-1,"Flat, sea view",Plain,SALE,APARTMENT,250000,Málaga,Soho,36.7182,-4.4228,elevator;Sea View,https://img.example.com/1.jpg|Living room;https://img.example.com/2.jpg,yes,3',
    'CSV-2,"The ""Blue"" house","Garden,',
    'pool and ""patio""",RENT,HOUSE,1900,Sevilla,Triana,,,pool|garden,"[{""url"":""https://img.example.com/3.jpg"",""caption"":""Patio; evening""}]",0,',
    'CSV-3,Bad price,,SALE,APARTMENT,"250.000,50",Madrid,,,,,,,',
    'CSV-4,Plain studio,,RENT,STUDIO,800,Valencia,,,,,,no,',
    'CSV-5,Castle,,SALE,CASTLE,900000,Toledo,,,,,,,',
    '',
  ].join('\r\n');

describe('agency-crm import properties: CSV', () => {
  it('imports the good rows, reports the bad ones with line and reason, exit 1 (the launcher, in a process)', async () => {
    const org = await createOrganization(app);
    const path = await file('tricky.csv', TRICKY_CSV);
    const run = expectExit(await cliProcess(baseUrl, ['import', 'properties', path, '--org', org.id]), 1);

    expect(run.stderr).toContain('line 5 (code CSV-3): price: "250.000,50" is not a number');
    expect(run.stderr).toMatch(/line 7 \(code CSV-5\): type: must be one of APARTMENT, HOUSE/);
    expect(run.stderr.trim().split('\n')).toHaveLength(2);
    expect(run.stdout).toContain('5 rows in');
    expect(run.stdout).toContain('3 created, 0 updated, 0 unchanged, 2 failed');

    const stored = await propertiesOf(org.id);
    expect([...stored.keys()].sort()).toEqual(['CSV-1', 'CSV-2', 'CSV-4']);
    expect(stored.get('CSV-1')).toMatchObject({
      title: 'Flat, sea view',
      price: 250000,
      coordinates: { latitude: 36.7182, longitude: -4.4228 },
      amenities: ['elevator', 'seaView'],
      photos: [
        { url: 'https://img.example.com/1.jpg', caption: 'Living room' },
        { url: 'https://img.example.com/2.jpg', caption: null },
      ],
      featured: true,
      customFields: { floor: '3' },
    });
    expect(stored.get('CSV-2')).toMatchObject({
      title: 'The "Blue" house',
      description: 'Garden,\r\npool and "patio"',
      amenities: ['pool', 'garden'],
      photos: [{ url: 'https://img.example.com/3.jpg', caption: 'Patio; evening' }],
      coordinates: null,
      featured: false,
      customFields: {},
    });
  });

  it('is idempotent: a second run creates nothing; a changed row is updated; exit 0 when all rows pass', async () => {
    const org = await createOrganization(app);
    const csv = [
      'code,title,transactionType,type,price,city',
      'R-1,One,SALE,APARTMENT,100000,Madrid',
      'R-2,Two,RENT,APARTMENT,1200,Madrid',
    ].join('\n');
    const path = await file('repeat.csv', csv);
    expect(
      expectExit(await cli(baseUrl, ['import', 'properties', path, '--org', org.id]), 0).stdout,
    ).toContain('2 created, 0 updated, 0 unchanged, 0 failed');
    expect(
      expectExit(await cli(baseUrl, ['import', 'properties', path, '--org', org.id]), 0).stdout,
    ).toContain('0 created, 0 updated, 2 unchanged, 0 failed');
    await file('repeat.csv', csv.replace('1200', '1150'));
    const run = expectExit(await cli(baseUrl, ['import', 'properties', path, '--org', org.id, '--json']), 0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      created: 0,
      updated: 1,
      unchanged: 1,
      failed: 0,
      errors: [],
    });
    expect((await propertiesOf(org.id)).get('R-2')?.price).toBe(1150);
  });

  it('--dry-run counts and writes nothing; --batch-size splits the requests', async () => {
    const org = await createOrganization(app);
    const lines = ['code,title,transactionType,type,price,city'];
    for (let i = 1; i <= 7; i++) lines.push(`B-${i},Flat ${i},SALE,APARTMENT,${100000 + i},Sevilla`);
    const path = await file('batches.csv', lines.join('\n'));
    const dry = expectExit(
      await cli(baseUrl, ['import', 'properties', path, '--org', org.id, '--dry-run']),
      0,
    );
    expect(dry.stdout).toContain('Dry run (nothing written)');
    expect(dry.stdout).toContain('would create 7');
    expect((await propertiesOf(org.id)).size).toBe(0);

    const run = expectExit(
      await cli(baseUrl, ['import', 'properties', path, '--org', org.id, '--batch-size', '3', '--json']),
      0,
    );
    expect(JSON.parse(run.stdout)).toMatchObject({ rows: 7, created: 7, failed: 0 });
    expect((await propertiesOf(org.id)).size).toBe(7);
  });

  it('reports a repeated code and an unknown agent with their lines', async () => {
    const org = await createOrganization(app);
    const path = await file(
      'dupes.csv',
      [
        'code,title,transactionType,type,price,city,agentId',
        'D-1,First,SALE,APARTMENT,1,Madrid,',
        'D-1,Again,SALE,APARTMENT,2,Madrid,',
        'D-2,Agent,SALE,APARTMENT,3,Madrid,agt_0000000000000000000000',
      ].join('\n'),
    );
    const run = expectExit(await cli(baseUrl, ['import', 'properties', path, '--org', org.id, '--json']), 1);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ created: 1, failed: 2 });
    expect(result.errors).toEqual([
      { location: 'line 3', code: 'D-1', field: 'code', message: 'repeats the code of line 2' },
      {
        location: 'line 4',
        code: 'D-2',
        field: 'agentId',
        message: 'does not name an agent of this organization',
      },
    ]);
  });

  it('refuses a file with an unknown column or a broken quote before sending anything: exit 1', async () => {
    const org = await createOrganization(app);
    const unknown = await file(
      'unknown.csv',
      'code,title,transactionType,type,prize,city\nX,Y,SALE,HOUSE,1,Z\n',
    );
    const run = expectExit(await cli(baseUrl, ['import', 'properties', unknown, '--org', org.id]), 1);
    expect(run.stderr).toContain('line 1: unknown column "prize"');
    expect(run.stderr).toContain('nothing was imported');

    const broken = await file(
      'broken.csv',
      'code,title,transactionType,type,price,city\nX,"Open quote,SALE,HOUSE,1,Z\nY,T,SALE,HOUSE,1,Z\n',
    );
    expect(
      expectExit(await cli(baseUrl, ['import', 'properties', broken, '--org', org.id]), 1).stderr,
    ).toContain('line 2: a quoted field starting here is never closed');
    const missing = await file('missing.csv', 'code,title,city\nX,Y,Z\n');
    expect(
      expectExit(await cli(baseUrl, ['import', 'properties', missing, '--org', org.id]), 1).stderr,
    ).toContain('missing column(s) transactionType, type, price');
    expect((await propertiesOf(org.id)).size).toBe(0);
  });
});

describe('agency-crm import properties: JSON, examples and errors', () => {
  it('imports a JSON array and reports bad items by index', async () => {
    const org = await createOrganization(app);
    const path = await file(
      'items.json',
      JSON.stringify([
        { code: 'J-1', title: 'One', transactionType: 'SALE', type: 'HOUSE', price: 1, city: 'Madrid' },
        { code: 'J-2', title: 'Two', transactionType: 'SALE', type: 'HOUSE', price: 'free', city: 'Madrid' },
        42,
      ]),
    );
    const run = expectExit(await cli(baseUrl, ['import', 'properties', path, '--org', org.id]), 1);
    expect(run.stderr).toContain('item 1 (code J-2): price: must be number');
    expect(run.stderr).toContain('item 2: must be an object');
    expect(run.stdout).toContain('1 created, 0 updated, 0 unchanged, 2 failed');
  });

  it('imports both example files of docs/examples without an error', async () => {
    for (const example of ['properties.csv', 'properties.json']) {
      const org = await createOrganization(app);
      const run = expectExit(
        await cli(baseUrl, [
          'import',
          'properties',
          join(REPO_ROOT, 'docs/examples', example),
          '--org',
          org.id,
        ]),
        0,
      );
      expect(run.stdout).toContain('5 created, 0 updated, 0 unchanged, 0 failed');
      const stored = await propertiesOf(org.id);
      expect(stored.get('MAL-0002')?.photos[0]?.caption).toBe('Garden; pool and terrace');
    }
  });

  it('an unknown organization is the API NOT_FOUND: exit 1; a missing FILE or --org is a usage error: exit 2', async () => {
    const path = await file('one.csv', 'code,title,transactionType,type,price,city\nX,Y,SALE,HOUSE,1,Z\n');
    const run = expectExit(
      await cli(baseUrl, ['import', 'properties', path, '--org', 'org_0000000000000000000000']),
      1,
    );
    expect(run.stderr).toMatch(/^Error NOT_FOUND: /);
    expect(expectExit(await cli(baseUrl, ['import', 'properties', '--org', 'org_x']), 2).stderr).toContain(
      'FILE',
    );
    expect(expectExit(await cli(baseUrl, ['import', 'properties', path]), 2).stderr).toContain('--org');
    expect(
      expectExit(
        await cli(baseUrl, ['import', 'properties', path, '--org', 'org_x', '--batch-size', '5000']),
        2,
      ).stderr,
    ).toContain('--batch-size must be between 1 and 1000');
    expect(
      expectExit(await cli(baseUrl, ['import', 'properties', join(dir, 'nope.csv'), '--org', 'org_x']), 1)
        .stderr,
    ).toContain('cannot read');
  });

  it('--help documents the exit codes', async () => {
    const run = expectExit(await cli(baseUrl, ['import', 'properties', '--help']), 0);
    expect(run.stdout).toContain('--dry-run');
    expect(run.stdout).toContain('Exit codes: 0 every row imported');
  });
});
