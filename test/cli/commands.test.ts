import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrganization } from '../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../helpers/http.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { cli, cliProcess, expectExit } from './support.ts';

let app: FastifyInstance;
let baseUrl: string;

/** A localhost port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

beforeAll(async () => {
  app = await buildTestApp();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  baseUrl = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  await app?.close();
});

describe('agency-crm CLI: happy path', () => {
  it('org create prints a summary, and the organization exists', async () => {
    const run = expectExit(
      await cli(baseUrl, ['org', 'create', '--name', 'Cli Realty', '--plan', 'STARTER']),
      0,
    );
    const id = /Created organization (org_\w+)/.exec(run.stdout)?.[1];
    expect(id, run.stdout).toBeDefined();
    expect(run.stdout).toContain('"Cli Realty" (STARTER)');

    const org = expectStatus(await admin(app, 'GET', `/admin/v1/organizations/${id}`), 200).data;
    expect(org).toMatchObject({ id, name: 'Cli Realty', plan: 'STARTER', livemode: true });
  });

  it('org create --json prints exactly the API data object', async () => {
    const run = expectExit(
      await cli(baseUrl, [
        'org',
        'create',
        '--json',
        '--name',
        'Json Realty',
        '--plan',
        'BUSINESS',
        '--country',
        'ES',
        '--currency',
        'EUR',
        '--write-limit',
        '50',
      ]),
      0,
    );
    const org = JSON.parse(run.stdout);
    expect(org).toMatchObject({
      name: 'Json Realty',
      plan: 'BUSINESS',
      defaultCountry: 'ES',
      defaultCurrency: 'EUR',
      writeLimitPerMinute: 50,
    });

    const fetched = expectStatus(await admin(app, 'GET', `/admin/v1/organizations/${org.id}`), 200).data;
    expect(fetched).toEqual(org);
    const list = expectStatus(await admin(app, 'GET', '/admin/v1/organizations?pageSize=100'), 200).data;
    expect(list.map((o: { id: string }) => o.id)).toContain(org.id);
  });

  it('key create --json returns a live secret key that works on /v1/me', async () => {
    const org = await createOrganization(app);
    const run = expectExit(
      await cli(baseUrl, [
        'key',
        'create',
        '--org',
        org.id,
        '--type',
        'secret',
        '--name',
        'CLI server',
        '--scopes',
        'contacts:read, contacts:write',
        '--access-level',
        '2',
        '--json',
      ]),
      0,
    );
    const key = JSON.parse(run.stdout);
    expect(key.key).toMatch(/^service_sk_live_/);
    expect(key.scopesFollowDefaults).toBe(false);
    expect(key).toMatchObject({
      organizationId: org.id,
      type: 'secret',
      mode: 'live',
      name: 'CLI server',
      scopes: ['contacts:read', 'contacts:write'],
      accessLevel: 2,
    });

    const me = expectStatus(await api(app, 'GET', '/v1/me', { key: key.key }), 200).data;
    expect(me).toMatchObject({ apiKeyId: key.id, keyType: 'secret', accessLevel: 2 });
    expect(me.organization.id).toBe(org.id);
  });

  it('key create without --json shows the key once, with a warning', async () => {
    const org = await createOrganization(app);
    const run = expectExit(
      await cli(baseUrl, ['key', 'create', '--org', org.id, '--type', 'publishable']),
      0,
    );
    const key = /(service_pk_live_\w+)/.exec(run.stdout)?.[1];
    expect(key, run.stdout).toBeDefined();
    expect(run.stdout).toContain('shown only once');
    // Made without --scopes: the type's defaults, and those later versions add (decision 0272).
    expect(run.stdout).toMatch(/scopes: +portal:read, .*\(and the defaults later versions add\)/);
    expectStatus(await api(app, 'GET', '/v1/me', { key: key as string }), 200);
  });

  it('key revoke deactivates the key: /v1/me then answers 401', async () => {
    const org = await createOrganization(app);
    const key = await createApiKey(app, org.id, { type: 'secret' });
    expectStatus(await api(app, 'GET', '/v1/me', { key: key.key }), 200);

    const run = expectExit(await cli(baseUrl, ['key', 'revoke', key.id]), 0);
    expect(run.stdout).toContain(`Deactivated`);
    expect(run.stdout).toContain(key.id);

    expectError(await api(app, 'GET', '/v1/me', { key: key.key }), 401, 'UNAUTHORIZED');
  });

  it('key revoke --json prints the deactivated key', async () => {
    const org = await createOrganization(app);
    const key = await createApiKey(app, org.id, { type: 'publishable' });
    const run = expectExit(await cli(baseUrl, ['key', 'revoke', '--json', key.id]), 0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: key.id, status: 'deactivated' });
  });

  it('console-link --org prints a one-time console link that opens a session once', async () => {
    const org = await createOrganization(app);
    const run = expectExit(await cli(baseUrl, ['console-link', '--org', org.id]), 0);
    const url = /(http:\/\/\S+\/console\/start\?token=\S+)/.exec(run.stdout)?.[1];
    expect(url, run.stdout).toBeDefined();
    const { pathname, search } = new URL(url as string);
    const open = () => app.inject({ method: 'GET', url: `${pathname}${search}` });
    expect((await open()).statusCode).toBe(303);
    expect((await open()).statusCode).toBe(410);
    const json = JSON.parse(
      expectExit(await cli(baseUrl, ['console-link', '--json', '--org', org.id]), 0).stdout,
    );
    expect(Object.keys(json).sort()).toEqual(['expiresAt', 'url']);
    expectExit(await cli(baseUrl, ['console-link']), 2);
  });

  it('key roll prints the new key once; both keys work during the overlap', async () => {
    const org = await createOrganization(app);
    const old = await createApiKey(app, org.id, { type: 'secret', name: 'rolled by cli' });
    const run = expectExit(await cli(baseUrl, ['key', 'roll', old.id, '--overlap-hours', '2']), 0);
    const key = /(service_sk_live_\w+)/.exec(run.stdout)?.[1];
    expect(key, run.stdout).toBeDefined();
    expect(key).not.toBe(old.key);
    expect(run.stdout).toContain(`Rolled live secret key ${old.id}`);
    expect(run.stdout).toContain('shown only once');
    expectStatus(await api(app, 'GET', '/v1/me', { key: key as string }), 200);
    expectStatus(await api(app, 'GET', '/v1/me', { key: old.key }), 200);
  });

  it('key roll --overlap-hours 0 --json: the old key answers 401 expired at once', async () => {
    const org = await createOrganization(app);
    const old = await createApiKey(app, org.id, { type: 'secret' });
    const run = expectExit(await cli(baseUrl, ['key', 'roll', '--json', old.id, '--overlap-hours', '0']), 0);
    const data = JSON.parse(run.stdout);
    expect(data).toMatchObject({ key: { type: 'secret', mode: 'live' }, rolledKey: { id: old.id } });
    const error = expectError(await api(app, 'GET', '/v1/me', { key: old.key }), 401, 'UNAUTHORIZED');
    expect(error.message).toMatch(/expired/);
    expectStatus(await api(app, 'GET', '/v1/me', { key: data.key.key }), 200);
  });

  it('seed demo --json returns two keys that both work on /v1/me', async () => {
    const run = expectExit(await cli(baseUrl, ['seed', 'demo', '--json']), 0);
    const seed = JSON.parse(run.stdout);
    expect(Object.keys(seed).sort()).toEqual(['organization', 'publishableKey', 'secretKey']);
    expect(seed.publishableKey).toMatch(/^service_pk_live_/);
    expect(seed.secretKey).toMatch(/^service_sk_live_/);

    for (const key of [seed.publishableKey, seed.secretKey]) {
      const me = expectStatus(await api(app, 'GET', '/v1/me', { key }), 200).data;
      expect(me.organization.id).toBe(seed.organization.id);
    }
  });

  it('seed demo without --json shows both keys with a warning', async () => {
    const run = expectExit(await cli(baseUrl, ['seed', 'demo']), 0);
    expect(run.stdout).toMatch(/publishable key: service_pk_live_\w+/);
    expect(run.stdout).toMatch(/secret key: +service_sk_live_\w+/);
    expect(run.stdout).toContain('shown only once');
  });

  it('--help prints usage on stdout with exit 0, for the CLI and for a command', async () => {
    const top = expectExit(await cli(baseUrl, ['--help']), 0);
    for (const command of [
      'org create',
      'key create',
      'key revoke',
      'console-link',
      'key roll',
      'seed demo',
      'import properties',
    ]) {
      expect(top.stdout).toContain(command);
    }
    const keyCreate = expectExit(await cli(baseUrl, ['key', 'create', '--help']), 0);
    expect(keyCreate.stdout).toContain('--access-level');
    expect(keyCreate.stdout).toContain('--expires-at');
  });
});

describe('agency-crm CLI: errors', () => {
  it('an invalid plan is the API VALIDATION_ERROR: exit 1 with code and request id', async () => {
    const run = expectExit(await cli(baseUrl, ['org', 'create', '--name', 'Bad Plan', '--plan', 'GOLD']), 1);
    expect(run.stderr).toMatch(/^Error VALIDATION_ERROR: .*body\.plan.* \(request req_\w+\)\n$/);
    expect(run.stdout).toBe('');
  });

  it('a wrong admin token is UNAUTHORIZED: exit 1', async () => {
    const run = expectExit(await cli(baseUrl, ['seed', 'demo', '--token', 'not-the-admin-token']), 1);
    expect(run.stderr).toMatch(/^Error UNAUTHORIZED: .*\(request req_\w+\)/);
  });

  it('an unknown key id on revoke is NOT_FOUND: exit 1', async () => {
    const run = expectExit(await cli(baseUrl, ['key', 'revoke', 'key_doesnotexist']), 1);
    expect(run.stderr).toMatch(/^Error NOT_FOUND: /);
  });

  it('key roll of a deactivated key is CONFLICT: exit 1', async () => {
    const org = await createOrganization(app);
    const old = await createApiKey(app, org.id, { type: 'secret' });
    expectExit(await cli(baseUrl, ['key', 'revoke', old.id]), 0);
    const run = expectExit(await cli(baseUrl, ['key', 'roll', old.id]), 1);
    expect(run.stderr).toContain('CONFLICT');
  });

  it('a missing required flag is a usage error: exit 2, nothing sent', async () => {
    const run = expectExit(await cli(baseUrl, ['org', 'create', '--plan', 'BUSINESS']), 2);
    expect(run.stderr).toContain('--name');
    expect(run.stdout).toBe('');
  });

  it('unknown commands, unknown flags, bad numbers and a missing KEY_ID are usage errors: exit 2', async () => {
    const cases: [string[], string][] = [
      [['org', 'delete'], 'unknown command "org delete"'],
      [['frobnicate'], 'unknown command'],
      [['seed', 'demo', '--bogus'], "'--bogus'"],
      [
        ['key', 'create', '--org', 'org_x', '--type', 'secret', '--rate-limit', 'ten'],
        '--rate-limit must be a whole number',
      ],
      [['key', 'revoke'], 'KEY_ID'],
      [['key', 'roll', 'key_x', '--overlap-hours', 'two'], '--overlap-hours must be a whole number'],
      [[], 'missing command'],
    ];
    const runs = await Promise.all(cases.map(([args]) => cli(baseUrl, args)));
    runs.forEach((run, index) => {
      expect(expectExit(run, 2).stderr).toContain(cases[index]?.[1]);
      expect(run.stdout).toBe('');
    });
  });

  it('import properties without --org is a usage error: exit 2 (the command is tested in import-properties.test.ts)', async () => {
    const run = expectExit(await cli(baseUrl, ['import', 'properties', 'listings.csv']), 2);
    expect(run.stderr).toContain('--org');
  });

  it('no admin token at all is a usage error: exit 2', async () => {
    const run = expectExit(await cli(baseUrl, ['seed', 'demo'], { ADMIN_TOKEN: '' }), 2);
    expect(run.stderr).toContain('ADMIN_TOKEN');
  });

  it('an unreachable server: exit 1 with a message naming the URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const run = expectExit(await cli(baseUrl, ['seed', 'demo', '--url', url]), 1);
    expect(run.stderr).toContain(`Cannot connect to the admin API at ${url}`);
  });

  it('AGENCY_CRM_URL from the env is used when --url is absent', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const run = expectExit(await cli(baseUrl, ['seed', 'demo'], { AGENCY_CRM_URL: url }), 1);
    expect(run.stderr).toContain(url);
  });
});

// The tests above run the CLI's main in this process; these run the launcher as an operator does.
describe('agency-crm CLI: the launcher (bin/agency-crm.mjs) in a process of its own', () => {
  it('exits 0 with the summary on stdout, 1 with the API error on stderr, 2 on a usage error', async () => {
    const [created, refused, usage] = await Promise.all([
      cliProcess(baseUrl, ['org', 'create', '--name', 'Launcher Realty', '--plan', 'STARTER']),
      cliProcess(baseUrl, ['key', 'revoke', 'key_doesnotexist']),
      cliProcess(baseUrl, ['org', 'create', '--plan', 'BUSINESS']),
    ]);
    expect(expectExit(created, 0).stdout).toMatch(/Created organization org_\w+/);
    expect(created.stderr).toBe('');
    expect(expectExit(refused, 1).stderr).toContain('NOT_FOUND');
    expect(refused.stdout).toBe('');
    expect(expectExit(usage, 2).stderr).toContain('--name');
  });
});
