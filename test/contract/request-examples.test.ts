/**
 * The contract says exactly what the server does (issue 40 item 7): every JSON request example of the
 * served document, sent to the live app with the operation's credential, answers 2xx. Each operation
 * runs in an organization of its own (so two examples never meet: a contact created twice with the
 * example's phone), with its path parameters and the example ids of its body (`<prefix>_0VhJ3k…`, see
 * ID_SUFFIX in src/platform/http/openapi-examples.ts) replaced by fixtures made for it, by prefix.
 * Where cheap, a read afterwards shows the example did what it says and nothing else (a PATCH example
 * must not wreck what it touches). An operation with a body example that this file can neither run
 * nor has listed in NOT_EXERCISED, with the reason, fails the file.
 */
import { createHmac } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, FAST, type Tenant } from '../helpers/factories.ts';
import { admin, expectStatus } from '../helpers/http.ts';
import { ADMIN_TOKEN, buildTestApp } from '../helpers/test-app.ts';
import { seedEmail } from '../features/email/support.ts';
import { fakeDns } from '../features/webhooks/support.ts';
import { Fixtures } from './fixtures.ts';

const HOOK_SECRET = 'hook-secret-for-request-examples-0123';
const BOUNCE_SECRET = 'bounce-secret-for-request-examples-0123';
/** An id of an example: `ct_0VhJ3kQ2Zt8mX1pR4sT6uE` (the suffix of openapi-examples.ts). */
const EXAMPLE_ID = /^([a-z]+)_0VhJ3kQ2Zt8mX1pR4sT6uE$/;
const DAY = 86_400_000;
const AHEAD = Date.parse('2027-01-01T00:00:00Z');

/**
 * Operations with a body example this file does not send, and why. Keep it short: an entry here is
 * an example nobody checks.
 */
const NOT_EXERCISED: Record<string, string> = {};

/** A path parameter other than `{id}`: the fixture it names. */
const PARAM_FIXTURES: Record<string, string> = {
  orgId: 'org',
  keyId: 'key',
  agentId: 'agt',
  propertyId: 'prop',
  photoId: 'ph',
  contactId: 'ct',
  numberId: 'mnum',
  templateId: 'tpl',
  slug: 'slug',
  token: 'token',
};

/** Path parameters that name a value every organization has (a consent channel, an email kind), not a fixture. */
const VALUE_PARAMS: Record<string, string> = {
  channel: 'EMAIL',
  // The email template examples are a visit confirmation's, in a language every organization writes in.
  kind: 'VISIT_CONFIRMATION',
  language: 'es',
};

/** `{id}`: the fixture named by the collection before it (`/v1/contacts/{id}`). */
const COLLECTION_FIXTURES: Record<string, string> = {
  organizations: 'org',
  contacts: 'ct',
  agents: 'agt',
  listings: 'prop',
  properties: 'prop',
  'visit-requests': 'vr',
  appointments: 'apt',
  tasks: 'task',
  pipelines: 'pl',
  deals: 'deal',
  webhooks: 'wh',
};

interface OpenApiOperation {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; example?: unknown }[];
  requestBody?: {
    content?: Record<string, { example?: unknown; examples?: Record<string, { value?: unknown }> }>;
  };
}

interface Case {
  method: string;
  path: string;
  operation: OpenApiOperation;
  examples: { name: string; value: unknown }[];
}

let app: FastifyInstance;
const cases: Case[] = [];
/** Every query parameter with an example: sent alone (with its page size) to its operation. */
const queryCases: { path: string; operation: OpenApiOperation; name: string; example: unknown }[] = [];

let shiftDays = 0;

const dns = fakeDns({ 'hooks.example.com': ['93.184.216.34'] });

beforeAll(async () => {
  app = await buildTestApp(
    { MESSAGING_WEBHOOK_SECRET: HOOK_SECRET, EMAIL_BOUNCE_SECRET: BOUNCE_SECRET },
    { lookup: dns },
  );
  const document = expectStatus(await app.inject({ method: 'GET', url: '/v1/openapi.json' }), 200) as {
    paths: Record<string, Record<string, OpenApiOperation>>;
  };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'query' && parameter.example !== undefined && method === 'get')
          queryCases.push({ path, operation, name: parameter.name, example: parameter.example });
      }
      const media = operation.requestBody?.content?.['application/json'];
      if (!media) continue;
      const examples = [
        ...(media.example === undefined ? [] : [{ name: 'example', value: media.example }]),
        ...Object.entries(media.examples ?? {}).map(([name, { value }]) => ({ name, value })),
      ];
      if (examples.length > 0) cases.push({ method: method.toUpperCase(), path, operation, examples });
    }
  }
  // Dates from AHEAD on stand for "some day ahead" (booking a visit, a key's expiry); earlier ones for
  // "some day past" (a usage event's occurredAt). Once the soonest ahead is less than a week away, whole
  // weeks (the same weekday) are added to every ahead date sent, so the file outlives its examples' dates.
  const dates = [...JSON.stringify(cases.map((item) => item.examples)).matchAll(/"(20\d\d-\d\d-\d\d)/g)]
    .map((m) => Date.parse(`${m[1]}T00:00:00Z`))
    .filter((date) => date >= AHEAD);
  while (Math.min(...dates) + shiftDays * DAY < Date.now() + 7 * DAY) shiftDays += 7;
}, 120_000);
afterAll(async () => {
  await app.close();
});

/** The fixture an id of the body names: by prefix, or `<prefix>:<field>` when the field needs another one. */
async function withFixtures(value: unknown, fixtures: Fixtures, field?: string): Promise<unknown> {
  if (typeof value === 'string') {
    const prefix = EXAMPLE_ID.exec(value)?.[1];
    if (prefix !== undefined) {
      const specific = `${prefix}:${field}`;
      return fixtures.get(['ct:sourceContactId'].includes(specific) ? specific : prefix);
    }
    const date = /^(20\d\d-\d\d-\d\d)(T.*)?$/.exec(value);
    if (date && shiftDays > 0 && Date.parse(`${date[1]}T00:00:00Z`) >= AHEAD) {
      const shifted = new Date(Date.parse(`${date[1]}T00:00:00Z`) + shiftDays * DAY)
        .toISOString()
        .slice(0, 10);
      return `${shifted}${date[2] ?? ''}`;
    }
    return value;
  }
  if (Array.isArray(value)) return Promise.all(value.map((item) => withFixtures(item, fixtures, field)));
  if (typeof value === 'object' && value !== null) {
    const entries = await Promise.all(
      Object.entries(value).map(
        async ([name, item]) => [name, await withFixtures(item, fixtures, name)] as const,
      ),
    );
    return Object.fromEntries(entries);
  }
  return value;
}

async function pathOf(path: string, fixtures: Fixtures): Promise<string> {
  const segments = path.split('/');
  const out: string[] = [];
  for (const [index, segment] of segments.entries()) {
    // OData's key syntax holds the parameter inside the segment: Property('{ListingKey}').
    const key = /^(\w+\(')\{ListingKey\}('\).*)$/.exec(segment);
    if (key) {
      out.push(`${key[1]}${await fixtures.get('prop')}${key[2]}`);
      continue;
    }
    const param = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (param === undefined) {
      out.push(segment);
      continue;
    }
    const value = VALUE_PARAMS[param];
    if (value !== undefined) {
      out.push(value);
      continue;
    }
    const fixture = param === 'id' ? COLLECTION_FIXTURES[segments[index - 1] ?? ''] : PARAM_FIXTURES[param];
    if (fixture === undefined)
      throw new Error(`no fixture for {${param}} of ${path}: add one or list the operation`);
    out.push(encodeURIComponent(await fixtures.get(fixture)));
  }
  return out.join('/');
}

/** The request headers of the operation's credential (its `security`, the route's admitted key types). */
function credentialOf(
  operation: OpenApiOperation,
  path: string,
  tenant: Tenant,
  raw: string,
): Record<string, string> {
  const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (schemes.includes('AdminToken')) return { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (schemes.includes('McpBearer'))
    return { authorization: `Bearer ${tenant.secret.key}`, accept: 'application/json, text/event-stream' };
  if (schemes.includes('ApiKey')) {
    const route = app.routeTable.find((entry) => entry.operationId === operation.operationId);
    const secret = route?.auth?.keyTypes.includes('secret') ?? true;
    return { 'x-api-key': secret ? tenant.secret.key : tenant.publishable.key };
  }
  if (path.startsWith('/hooks/messaging/'))
    return { 'x-hub-signature-256': `sha256=${createHmac('sha256', HOOK_SECRET).update(raw).digest('hex')}` };
  if (path === '/hooks/email/bounces')
    return { 'x-email-signature': `sha256=${createHmac('sha256', BOUNCE_SECRET).update(raw).digest('hex')}` };
  return {}; // the URL carries the credential (`{token}`)
}

/** Things an operation needs before its example can work, beyond the fixtures it names. */
const PREPARE: Record<string, (fixtures: Fixtures) => Promise<void>> = {
  // A message goes out only inside the 24-hour window the contact's own message opens.
  'conversations.messages.send': async (fixtures) => {
    await fixtures.get('mnum');
    const path = `/admin/v1/organizations/${fixtures.tenant.org.id}/contacts/${await fixtures.get('ct')}/inbound-messages`;
    expectStatus(await admin(app, 'POST', path, { body: 'Hola, ¿sigue disponible?' }), 201);
  },
  // The example's Message-ID names the example email id: a sent email of the organization with that id.
  'hooks.email.bounces': async (fixtures) => {
    await seedEmail(fixtures.tenant.org.id, {
      id: 'eml_0VhJ3kQ2Zt8mX1pR4sT6uE',
      toAddress: 'marta@example.com',
    });
  },
};

type Sent = {
  fixtures: Fixtures;
  body: Record<string, unknown>;
  url: string;
  response: LightMyRequestResponse;
};

const get = async (sent: Sent, url: string) => {
  const admin = url.startsWith('/admin/');
  const headers: Record<string, string> = admin
    ? { authorization: `Bearer ${ADMIN_TOKEN}` }
    : { 'x-api-key': sent.fixtures.tenant.secret.key };
  return expectStatus(await app.inject({ method: 'GET', url, headers }), 200).data;
};

/** What a read shows afterwards, where that is cheap: the example did what it says, and no harm. */
const CHECKS: Record<string, (sent: Sent) => Promise<void>> = {
  'agents.booking.update': async (sent) => {
    const agent = await get(
      sent,
      `/admin/v1/organizations/${sent.fixtures.tenant.org.id}/agents/${await sent.fixtures.get('agt')}`,
    );
    expect(agent.bookingSlug, 'the example keeps the agent slug').toMatch(/^examples-/);
    expect(agent.booking.slotMinutes).toBeGreaterThanOrEqual(15);
    expect(agent.booking.weekdays.length + agent.booking.weeklyHours.length).toBeGreaterThanOrEqual(5);
  },
  'admin.organizations.update': async (sent) => {
    const org = await get(sent, `/admin/v1/organizations/${sent.fixtures.tenant.org.id}`);
    expect(org).toMatchObject({ isActive: true, readOnly: false });
    expect(org.writeLimitPerMinute ?? Infinity).toBeGreaterThanOrEqual(60);
  },
  'listings.update': async (sent) => {
    const listing = await get(sent, `/v1/listings/${await sent.fixtures.get('prop')}`);
    for (const [field, value] of Object.entries(sent.body)) expect(listing[field], field).toEqual(value);
  },
  'contacts.update': async (sent) => {
    const contact = await get(sent, `/v1/contacts/${await sent.fixtures.get('ct')}`);
    expect(contact).toMatchObject(sent.body);
  },
  'deals.update': async (sent) => {
    const deal = await get(sent, `/v1/deals/${await sent.fixtures.get('deal')}`);
    expect(deal).toMatchObject({ value: sent.body.value, agentId: sent.body.agentId });
  },
  'deals.move': async (sent) => {
    const deal = await get(sent, `/v1/deals/${await sent.fixtures.get('deal')}`);
    expect(deal).toMatchObject({ stageId: sent.body.stageId });
  },
  'usage.events.batch': async (sent) => {
    // The example's last event is dated 2099 on purpose: it shows a rejected item.
    const result = sent.response.json().data;
    expect(result.rejected.map((item: { index: number }) => item.index)).toEqual([2]);
  },
  'hooks.messaging.receive': async (sent) => {
    expect(sent.response.json().data).toMatchObject({ received: 1, ignored: 0 });
  },
  'hooks.email.bounces': async (sent) => {
    expect(sent.response.json().data).toMatchObject({ outcome: 'BOUNCED', suppressed: true });
  },
  'mcp.call': async (sent) => {
    expect(sent.response.body).toContain('"tools"');
  },
  'calendar.settings.update': async (sent) => {
    const settings = await get(sent, '/v1/calendar/settings');
    expect(settings).toMatchObject(sent.body);
  },
  'email.settings.update': async (sent) => {
    expect(await get(sent, '/v1/email/settings')).toMatchObject(sent.body);
  },
  'email.templates.put': async (sent) => {
    const template = await get(sent, '/v1/email/templates/VISIT_CONFIRMATION/es');
    expect(template).toMatchObject({ ...sent.body, custom: true });
  },
};

/** Sends one example of one operation in an organization of its own. */
async function send(item: Case, example: unknown): Promise<Sent> {
  const tenant = await createTenant(app, {
    org: { name: 'Demo Realty', defaultCountry: 'ES', defaultCurrency: 'EUR', writeLimitPerMinute: 100_000 },
    everyKey: FAST,
    readOnly: { writeLimitPerMinute: 0 },
  });
  const fixtures = new Fixtures(app, tenant);
  await PREPARE[item.operation.operationId]?.(fixtures);
  const url = await pathOf(item.path, fixtures);
  const body = (await withFixtures(example, fixtures)) as Record<string, unknown>;
  const raw = JSON.stringify(body);
  const request: InjectOptions = {
    method: item.method as InjectOptions['method'],
    url,
    headers: { 'content-type': 'application/json', ...credentialOf(item.operation, item.path, tenant, raw) },
    payload: raw,
  };
  return { fixtures, body, url, response: await app.inject(request) };
}

describe('request examples of /v1/openapi.json', () => {
  it('are many, and every operation left out is still in the document', () => {
    expect(cases.length).toBeGreaterThan(50);
    const ids = new Set(cases.map((item) => item.operation.operationId));
    expect(
      Object.keys(NOT_EXERCISED).filter((id) => !ids.has(id)),
      'stale NOT_EXERCISED entries',
    ).toEqual([]);
  });

  it('each answers 2xx when sent with real ids and the right credential', { timeout: 300_000 }, async () => {
    const failures: string[] = [];
    for (const item of cases) {
      if (NOT_EXERCISED[item.operation.operationId] !== undefined) continue;
      for (const example of item.examples) {
        const label = `${item.operation.operationId} (${item.method} ${item.path}, ${example.name})`;
        try {
          const sent = await send(item, example.value);
          const status = sent.response.statusCode;
          if (status < 200 || status > 299) {
            failures.push(
              `${label}: ${status} ${sent.response.body.slice(0, 400)} — sent ${JSON.stringify(sent.body).slice(0, 300)}`,
            );
            continue;
          }
          // Required headers, like the status and body, are checked on every answer of every test
          // app (test/helpers/response-contract.ts).
          await CHECKS[item.operation.operationId]?.(sent);
        } catch (error) {
          failures.push(`${label}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
    expect(failures.length, `\n${failures.join('\n\n')}\n`).toBe(0);
  });

  it('each query-parameter example answers 2xx, an opaque page token replaced by one the list gave', async () => {
    expect(queryCases.length).toBeGreaterThan(20);
    const failures: string[] = [];
    for (const item of queryCases) {
      const label = `${item.operation.operationId} ${item.path}?${item.name}=${String(item.example)}`;
      const tenant = await createTenant(app, { everyKey: FAST, readOnly: { writeLimitPerMinute: 0 } });
      const fixtures = new Fixtures(app, tenant);
      const url = await pathOf(item.path, fixtures);
      const headers = credentialOf(item.operation, item.path, tenant, '');
      const get = (query: string) => app.inject({ method: 'GET', url: `${url}?${query}`, headers });
      let query = `${encodeURIComponent(item.name)}=${encodeURIComponent(String(await withFixtures(item.example, fixtures)))}`;
      if (item.name === 'cursor' || item.name === '$skiptoken') {
        // A page token is sealed to the organization and the filters that made it: a second record of the
        // list (a second set of fixtures) and its first page of one give the token to send.
        const collection =
          item.path
            .split('/')
            .filter((part) => !part.startsWith('{'))
            .at(-1) ?? '';
        const fixture = item.name === 'cursor' ? COLLECTION_FIXTURES[collection] : 'prop';
        for (const set of [fixtures, new Fixtures(app, tenant)]) await set.get(fixture ?? 'none');
        const first = await get(
          item.name === 'cursor' ? `updatedAfter=2000-01-01T00:00:00Z&pageSize=1` : '$top=1',
        );
        const body = first.json();
        const token =
          item.name === 'cursor'
            ? body.meta?.nextCursor
            : new URL(body['@odata.nextLink'] ?? 'http://x/').searchParams.get('$skiptoken');
        if (typeof token !== 'string') {
          failures.push(
            `${label}: the first page gave no token: ${first.statusCode} ${first.body.slice(0, 200)}`,
          );
          continue;
        }
        query =
          item.name === 'cursor'
            ? `updatedAfter=2000-01-01T00:00:00Z&pageSize=1&cursor=${token}`
            : `$top=1&$skiptoken=${token}`;
      }
      const response = await get(query);
      if (response.statusCode < 200 || response.statusCode > 299)
        failures.push(`${label}: ${response.statusCode} ${response.body.slice(0, 300)}`);
    }
    expect(failures.length, `\n${failures.join('\n\n')}\n`).toBe(0);
  }, 300_000);
});
