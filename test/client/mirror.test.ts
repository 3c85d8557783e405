/**
 * docs/sync.md's mirror loop (clients/typescript/examples/mirror.mjs), run as an integrator runs it
 * against a listening server while contacts and deals are created, changed and deleted before,
 * during and after its initial load: its copy must end equal to what the API lists.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createContact, createTenant, type Tenant } from '../helpers/factories.ts';
import { admin, api, expectStatus } from '../helpers/http.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { createPipeline } from '../features/deals/support.ts';
import { eventually } from '../features/webhooks/support.ts';
import { CLIENT_PACKAGE, listen } from './support.ts';

const EXAMPLE = join(CLIENT_PACKAGE, 'examples', 'mirror.mjs');
const GUIDE = new URL('../../docs/sync.md', import.meta.url);

let app: FastifyInstance;
let baseUrl: string;
let tenant: Tenant;
let child: ChildProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), 'mirror-'));

beforeAll(async () => {
  app = await buildTestApp();
  baseUrl = await listen(app);
  tenant = await createTenant(app, { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } });
  await createPipeline(app, tenant.org.id);
});
afterAll(async () => {
  child?.kill('SIGTERM');
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

let sequence = 0;
const key = () => tenant.secret.key;

async function createMirrorContact() {
  sequence += 1;
  const body = { firstName: `Mirror${sequence}`, email: `mirror${sequence}@example.com` };
  return createContact(app, tenant, { via: 'api', body });
}

async function createDeal(contactId: string) {
  sequence += 1;
  const body = { title: `Flat ${sequence}`, contactId };
  // No v1 deal writes yet: the back office creates them.
  const path = `/admin/v1/organizations/${tenant.org.id}/deals`;
  return expectStatus(await admin(app, 'POST', path, body), 201).data as { id: string };
}

/** Every item of a v1 list, by cursor. */
async function everything(path: string): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let query: Record<string, string> = { updatedAfter: '1970-01-01T00:00:00Z', pageSize: '100' };
  for (;;) {
    const page = expectStatus(await api(app, 'GET', path, { key: key(), query }), 200);
    items.push(...page.data);
    if (!page.meta.hasMore) return items.sort((a, b) => String(a.id).localeCompare(String(b.id)));
    query = { ...query, cursor: page.meta.nextCursor };
  }
}

const view = (rows: Array<Record<string, unknown>>, fields: string[]) =>
  rows.map((row) => Object.fromEntries(fields.map((field) => [field, row[field]])));

it('is the example docs/sync.md prints', () => {
  expect(readFileSync(GUIDE, 'utf8')).toContain(readFileSync(EXAMPLE, 'utf8'));
});

it('ends with the same contacts and deals as the API, deletions included', async () => {
  // Before the mirror starts: 150 contacts (two pages of the load), some with deals.
  const contacts = [];
  for (let i = 0; i < 150; i += 1) contacts.push(await createMirrorContact());
  const deals = [];
  for (const contact of contacts.slice(0, 10)) deals.push(await createDeal(contact.id));

  const file = join(dir, 'mirror.json');
  child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', EXAMPLE], {
    env: {
      PATH: process.env.PATH ?? '',
      AGENCY_CRM_URL: baseUrl,
      AGENCY_CRM_SECRET_KEY: key(),
      MIRROR_FILE: file,
      MIRROR_POLL_MS: '200',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  // While it loads and then follows: changes, creations and deletions of both kinds.
  for (const contact of contacts.slice(20, 40)) {
    const body = { lastName: 'Changed', status: 'QUALIFIED' };
    expectStatus(await api(app, 'PATCH', `/v1/contacts/${contact.id}`, { key: key(), body }), 200);
  }
  for (let i = 0; i < 5; i += 1) deals.push(await createDeal((await createMirrorContact()).id));
  // A contact with a deal, erased: the deal stays without it (deal.updated, then contact.deleted).
  expectStatus(
    await admin(app, 'DELETE', `/admin/v1/organizations/${tenant.org.id}/contacts/${contacts[0]?.id}`),
    200,
  );
  expectStatus(
    await admin(app, 'DELETE', `/admin/v1/organizations/${tenant.org.id}/deals/${deals[5]?.id}`),
    200,
  );
  await eventually(async () => expect(existsSync(file), output).toBe(true), 20_000);
  for (const contact of contacts.slice(100, 110)) {
    const body = { tags: ['after-load'] };
    expectStatus(await api(app, 'PATCH', `/v1/contacts/${contact.id}`, { key: key(), body }), 200);
  }
  expectStatus(
    await admin(app, 'DELETE', `/admin/v1/organizations/${tenant.org.id}/contacts/${contacts[1]?.id}`),
    200,
  );

  const contactFields = ['id', 'firstName', 'lastName', 'email', 'status', 'tags'];
  const dealFields = ['id', 'title', 'contactId', 'stageId', 'status'];
  const expected = {
    contacts: view(await everything('/v1/contacts'), contactFields),
    deals: view(await everything('/v1/deals'), dealFields),
  };
  expect(expected.contacts).toHaveLength(150 + 5 - 2);
  expect(expected.deals).toHaveLength(15 - 1);
  await eventually(async () => {
    const mirror = JSON.parse(readFileSync(file, 'utf8')) as {
      contacts: Array<Record<string, unknown>>;
      deals: Array<Record<string, unknown>>;
    };
    expect(
      { contacts: view(mirror.contacts, contactFields), deals: view(mirror.deals, dealFields) },
      output,
    ).toEqual(expected);
  }, 20_000);
}, 90_000);
