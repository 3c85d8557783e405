/**
 * The client's examples (clients/typescript/examples), run as an integrator runs them, against a
 * listening server: the portal script, the webhook receiver with real deliveries, the MCP client
 * configuration; and the built package (tsc to dist/) on plain Node, no TypeScript tooling.
 *
 * The examples import `@agency-crm/client` by name: inside the package Node resolves that to the
 * package itself; `--conditions=source` picks src/index.ts (run through tsx), the default dist/.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../clients/typescript/src/index.ts';
import type { Database } from '../../src/db/database.ts';
import type { RunningJobs } from '../../src/platform/jobs/scheduler.ts';
import { createProperty, createTenant, type Tenant } from '../helpers/factories.ts';
import { buildTestApp, testDatabase } from '../helpers/test-app.ts';
import { eventually, startWorker } from '../features/webhooks/support.ts';
import { buildClientPackage, CLIENT_PACKAGE, clientFor, listen } from './support.ts';

const run = promisify(execFile);
const EXAMPLES = join(CLIENT_PACKAGE, 'examples');
const FROM_SOURCE = ['--conditions=source', '--import', 'tsx'];

let app: FastifyInstance;
let db: Database;
let worker: RunningJobs;
let baseUrl: string;
let tenant: Tenant;
let secret: Client;
const children: ChildProcess[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  db = await testDatabase();
  worker = startWorker(db);
  baseUrl = await listen(app);
  tenant = await createTenant(app, {
    secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 },
  });
  secret = clientFor(baseUrl, tenant.secret.key);
});
afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await worker.stop();
  await app.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs `script` with node to its end; resolves with its output. */
async function runExample(script: string, env: Record<string, string>, nodeArgs = FROM_SOURCE) {
  const { stdout, stderr } = await run(process.execPath, [...nodeArgs, script], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', ...env },
    timeout: 60_000,
  });
  return { stdout, stderr };
}

describe('examples/portal.mjs', () => {
  it('lists every published property over several pages and captures a lead, with the publishable key', async () => {
    const codes: string[] = [];
    for (let i = 0; i < 50; i += 1) {
      codes.push((await createProperty(app, tenant.org.id, { price: 100_000 + i * 1_000 })).code);
    }
    const { stdout } = await runExample(join(EXAMPLES, 'portal.mjs'), {
      AGENCY_CRM_URL: baseUrl,
      AGENCY_CRM_PUBLISHABLE_KEY: tenant.publishable.key,
      LEAD_PHONE: '+34 611 222 333',
    });
    // One line per property, cheapest first, from two pages of 48.
    const listed = stdout.split('\n').filter((line) => line.startsWith('P-'));
    expect(listed.map((line) => line.split(' ')[0])).toEqual(codes);
    expect(stdout).toContain('50 properties');
    expect(stdout).toMatch(/lead captured: success=true \(request req_\w+\)/);
    const contacts = await secret.contacts.list({ q: '611222333' });
    expect(contacts.data.map((contact) => contact.firstName)).toEqual(['Lucía']);
    // 50 writes and a child process: on CI it shares two cores with two other test legs.
  }, 90_000);

  it('prints the API error with its fields when the lead is refused', async () => {
    const failed = await runExample(join(EXAMPLES, 'portal.mjs'), {
      AGENCY_CRM_URL: baseUrl,
      AGENCY_CRM_PUBLISHABLE_KEY: tenant.publishable.key,
      LEAD_PHONE: '12',
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toMatch(
      /lead refused: 400 VALIDATION_ERROR: .*\(request req_\w+\)\n {2}body\.phone: /,
    );
  });
});

describe('examples/webhook-receiver.mjs', () => {
  it('handles real deliveries once each (a replay is a duplicate) and refuses a forged one', async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const hook = await secret.webhooks.create({
      url: `http://127.0.0.1:${port}/`,
      eventTypes: ['contact.created', 'webhook.test'],
    });
    const child = spawn(process.execPath, [...FROM_SOURCE, join(EXAMPLES, 'webhook-receiver.mjs')], {
      env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: hook.data.secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(async () => expect(output).toContain(`listening on http://127.0.0.1:${port}`), 30_000);

    const created = await secret.contacts.create({
      firstName: 'Marta',
      lastName: 'Gil',
      phone: '+34 622 333 444',
    });
    await eventually(async () => expect(output).toMatch(/received contact\.created evt_\w+: Marta Gil/));
    const eventId = /received contact\.created (evt_\w+)/.exec(output)?.[1] as string;

    // The same event sent again (a replay from the delivery log) is acknowledged, not handled twice.
    const log = await secret.webhooks.deliveries(hook.data.id, { type: 'contact.created' });
    const [delivery] = log.data;
    expect(delivery?.eventId).toBe(eventId);
    await eventually(async () => {
      expect((await secret.webhooks.deliveries(hook.data.id)).data[0]?.status).toBe('SUCCEEDED');
    });
    await secret.webhooks.retryDelivery(delivery?.id as string);
    await eventually(async () => expect(output).toContain(`duplicate contact.created ${eventId}`));
    expect(output.split(`received contact.created ${eventId}`)).toHaveLength(2);
    expect(created.data.id).toBeTruthy();

    // A forged delivery is answered 400 with the reason.
    const forged = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'x-service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
      body: JSON.stringify({ id: 'evt_forged', type: 'deal.won' }),
    });
    expect(forged.status).toBe(400);
    expect(await forged.text()).toBe('BAD_SIGNATURE');
    // The receiver logs before it answers, but its stdout may reach this process after the answer.
    await eventually(async () => expect(output).toContain('rejected: BAD_SIGNATURE'));
    expect(output).not.toContain('evt_forged');
  });
});

describe('examples/mcp.json', () => {
  it('connects an MCP client to the server with the secret key from the environment', async () => {
    const config = JSON.parse(readFileSync(join(EXAMPLES, 'mcp.json'), 'utf8')) as {
      mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }>;
    };
    const server = config.mcpServers['agency-crm'];
    expect(server?.type).toBe('http');
    const env: Record<string, string> = { AGENCY_CRM_SECRET_KEY: tenant.secret.key };
    // What the MCP client does with the file: expand ${VAR}, then connect (to this test's server).
    const headers = Object.fromEntries(
      Object.entries(server?.headers ?? {}).map(([name, value]) => [
        name,
        value.replace(/\$\{(\w+)\}/g, (_match, variable: string) => env[variable] ?? ''),
      ]),
    );
    const url = new URL(new URL(server?.url ?? '').pathname, baseUrl);
    const mcp = new McpClient({ name: 'example-config', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    try {
      const { tools } = await mcp.listTools();
      expect(tools.map((tool) => tool.name)).toContain('get_summary');
      const summary = await mcp.callTool({ name: 'get_summary', arguments: {} });
      expect(summary.isError ?? false, JSON.stringify(summary.content)).toBe(false);
    } finally {
      await mcp.close();
    }
  });
});

describe('the built package', () => {
  it('compiles with tsc to ESM that plain Node runs with no dependency (the portal example)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agency-client-'));
    dirs.push(dir);
    await buildClientPackage(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
    const { stdout } = await runExample(
      join(dir, 'examples', 'portal.mjs'),
      {
        AGENCY_CRM_URL: baseUrl,
        AGENCY_CRM_PUBLISHABLE_KEY: tenant.publishable.key,
        LEAD_PHONE: '+34 633 444 555',
      },
      [],
    );
    expect(stdout).toMatch(/\d+ properties/);
    expect(stdout).toMatch(/lead captured: success=true/);
  }, 180_000);
});
