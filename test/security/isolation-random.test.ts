/**
 * Randomized tenant isolation (docs/reliability.md "Hostile input"). The route-table suite proves
 * that another tenant's id in a path is a 404; this proves the rest of the read surface: two
 * organizations get random data through the API (each text carrying the organization's marker),
 * then random reads — every keyed GET of /v1/openapi.json and every MCP tool, with random filters,
 * search terms (including the other organization's marker) and ids of both organizations — are
 * made with one organization's keys. No answer may hold an id or the marker of the other
 * organization, nor, for a test-mode key, of its own live organization.
 */
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, api, expectStatus } from '../helpers/http.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { loadApi, type Operation, type Schema } from '../fuzz/support/operations.ts';
import { percentEncode } from '../fuzz/support/requests.ts';
import { FUZZ_RUNS, FUZZ_SEED } from '../fuzz/support/settings.ts';
import { valueFor } from '../fuzz/support/values.ts';
import {
  FUZZ_DNS,
  namedValues,
  poolOfParameter,
  seedOrganization,
  type FuzzOrganization,
  type Pools,
} from '../fuzz/support/world.ts';

let app: FastifyInstance;
let reads: Operation[];
let mcpTools: { name: string; inputSchema: Schema }[];

interface Side {
  org: FuzzOrganization;
  marker: string;
  /** Every id of this organization that an answer could show. */
  ids: string[];
}
let alpha: Side;
let bravo: Side;

/** Markers no shared data holds (the event catalog, the OpenAPI text). */
const marker = (name: string) => `${name}${FUZZ_SEED.toString(36).toUpperCase()}Q`;

/** Random extra data through the API, so each run isolates a different mix of rows. */
async function addRandomData(org: FuzzOrganization, mark: string, seed: number): Promise<string[]> {
  const created: string[] = [];
  const actions = fc.sample(
    fc.array(
      fc.record({
        kind: fc.constantFrom(
          'contact',
          'lead',
          'finder',
          'schedule',
          'usage',
          'message',
          'property',
          'task',
        ),
        n: fc.integer({ min: 10_000_000, max: 99_999_999 }),
      }),
      { minLength: 8, maxLength: 16 },
    ),
    { seed, numRuns: 1 },
  )[0] as { kind: string; n: number }[];
  const orgPath = `/admin/v1/organizations/${org.id}`;
  const [contactId] = org.pools.contacts;
  const [propertyId] = org.pools.properties;
  for (const { kind, n } of actions) {
    const phone = `+346${n}`;
    const person = { firstName: `Ana ${mark}`, phone };
    let response;
    if (kind === 'contact') {
      response = await api(app, 'POST', '/v1/contacts', {
        key: org.keys.secret,
        body: { ...person, email: `c${n}@example.com`, tags: [mark.toLowerCase()], preferredCity: mark },
      });
      created.push(expectStatus(response, 201).data.id);
    } else if (kind === 'lead') {
      response = await api(app, 'POST', '/v1/leads', {
        key: org.keys.publishable,
        body: { ...person, message: `About ${mark}`, propertyId, utmCampaign: mark },
      });
      expectStatus(response, 201);
    } else if (kind === 'finder') {
      response = await api(app, 'POST', '/v1/finder', {
        key: org.keys.publishable,
        body: { ...person, city: 'Málaga', neighborhood: mark },
      });
      created.push(expectStatus(response, 201).data.contact.id);
    } else if (kind === 'schedule') {
      const date = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
      response = await api(app, 'POST', '/v1/leads/schedule', {
        key: org.keys.publishable,
        body: { ...person, propertyId, preferredDate: date, preferredTime: 'morning' },
      });
      expectStatus(response, 201);
    } else if (kind === 'usage') {
      response = await api(app, 'POST', '/v1/usage/events', {
        key: org.keys.secret,
        body: { name: `report.${mark.toLowerCase()}`, label: mark, contactId, props: { marker: mark } },
      });
      expectStatus(response, 200);
    } else if (kind === 'message') {
      response = await api(app, 'POST', `/v1/conversations/${contactId}/messages`, {
        key: org.keys.secret,
        body: { body: `Hello ${mark}` },
      });
      created.push(expectStatus(response, 201).data.id);
    } else if (kind === 'property') {
      response = await admin(app, 'POST', `${orgPath}/properties`, {
        code: `P${n}`,
        title: `Loft ${mark}`,
        transactionType: 'SALE',
        type: 'APARTMENT',
        price: 100_000 + n,
        city: 'Málaga',
        neighborhood: mark,
      });
      created.push(expectStatus(response, 201).data.id);
    } else {
      response = await admin(app, 'POST', `${orgPath}/tasks`, { title: `Follow ${mark}`, contactId });
      created.push(expectStatus(response, 201).data.id);
    }
  }
  return created;
}

async function side(name: string, seed: number): Promise<Side> {
  const mark = marker(name);
  const org = await seedOrganization(app, `Isolation ${name}`, mark);
  const extra = await addRandomData(org, mark, seed);
  const ids = [...Object.values(org.pools).flat(), ...org.keyIds, ...extra].filter(
    // Event types and phone numbers are not secrets of one organization.
    (id) => /^[a-z]+_[0-9A-Za-z]{20,}$/.test(id),
  );
  return { org, marker: mark, ids: [...new Set(ids)] };
}

beforeAll(async () => {
  app = await buildTestApp({ AUTH_FAILURE_LIMIT: '1000000' }, { lookup: FUZZ_DNS });
  const document = await loadApi(app);
  reads = document.operations.filter((op) => op.kind === 'keyed' && op.method === 'GET');
  alpha = await side('ALPHA', FUZZ_SEED);
  bravo = await side('BRAVO', FUZZ_SEED + 1);
  const listed = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      authorization: `Bearer ${alpha.org.keys.secret}`,
      accept: 'application/json, text/event-stream',
    },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });
  mcpTools = expectStatus(listed, 200).result.tools;
}, 180_000);
afterAll(async () => {
  await app.close();
});

/** Ids of both organizations for each pool: filters and paths try the other one's too. */
function mixedPools(a: Pools, b: Pools): Pools {
  return Object.fromEntries(
    Object.keys(a).map((k) => [k, [...a[k as keyof Pools], ...b[k as keyof Pools]]]),
  ) as Pools;
}

interface Read {
  label: string;
  request: InjectOptions & { url: string };
}

type ViewerKey = { key: string; type: 'secret' | 'publishable' | 'read_only_secret' };

/** A random read with `viewer`'s key: a keyed GET it may call or an MCP tool, ids of both organizations. */
function readArbitrary(viewer: Side, other: Side, { key: viewerKey, type }: ViewerKey): fc.Arbitrary<Read> {
  const pools = mixedPools(viewer.org.pools, other.org.pools);
  const named = namedValues(pools);
  // Search terms: the other organization's marker most of all.
  const searchy = (name: string) =>
    ['q', 'city', 'neighborhood', 'tag', 'externalId', 'type', 'name', 'query'].includes(name)
      ? fc.constantFrom(other.marker, other.marker.toLowerCase(), viewer.marker, 'Ana', 'a')
      : null;
  const values = (name: string) => searchy(name) ?? named(name);

  const callable = reads.filter((op) => op.auth?.keyTypes.includes(type));
  const rest = fc.constantFrom(...callable).chain((op) => {
    const path: fc.Arbitrary<string[]> = fc.tuple(
      ...op.pathParams.map((p) => {
        const pool = poolOfParameter(op.path, p.name);
        return fc.constantFrom(...(pool ? pools[pool] : ['none']));
      }),
    );
    const query = fc.tuple(
      ...op.queryParams.map((p) =>
        fc.option(
          valueFor(p.schema, values, p.name).map((v) => `${p.name}=${percentEncode(String(v))}`),
          { nil: null },
        ),
      ),
    );
    return fc.tuple(path, query).map(([params, pairs]): Read => {
      const url =
        op.pathParams.reduce(
          (u, p, i) => u.replace(`{${p.name}}`, percentEncode(params[i] as string)),
          op.path,
        ) + (pairs.some((x) => x !== null) ? `?${pairs.filter((x) => x !== null).join('&')}` : '');
      const headers: Record<string, string> = { 'x-api-key': viewerKey };
      return { label: op.operationId, request: { method: 'GET', url, headers } };
    });
  });

  const tool = fc.constantFrom(...mcpTools).chain((t) =>
    valueFor(t.inputSchema, values).map((args): Read => ({
      label: `mcp ${t.name}`,
      request: {
        method: 'POST',
        url: '/mcp',
        headers: { authorization: `Bearer ${viewerKey}`, accept: 'application/json, text/event-stream' },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: t.name, arguments: args } },
      },
    })),
  );
  // The MCP endpoint takes secret keys only.
  return type === 'publishable'
    ? rest
    : fc.oneof({ weight: 3, arbitrary: rest }, { weight: 1, arbitrary: tool });
}

/** Runs random reads and fails on any answer that shows `forbidden` text; returns the answers seen. */
async function readAsAndCheck(
  viewer: Side,
  viewerKey: ViewerKey,
  forbidden: string[],
  other: Side,
  seed: number,
) {
  const seen = { ok: 0, ownMarker: 0, statuses: new Map<number, number>() };
  await fc.assert(
    fc.asyncProperty(readArbitrary(viewer, other, viewerKey), async ({ label, request }) => {
      const response = await app.inject(request);
      seen.statuses.set(response.statusCode, (seen.statuses.get(response.statusCode) ?? 0) + 1);
      expect(response.statusCode, `${label} ${request.url}: ${response.body.slice(0, 300)}`).toBeLessThan(
        500,
      );
      // An error may name what the request itself sent ("Contact ct_… not found"): not a leak.
      const sent = `${request.url} ${JSON.stringify(request.payload ?? '')}`;
      const leaked = forbidden.filter((text) => response.body.includes(text) && !sent.includes(text));
      expect(
        leaked,
        `${label} ${request.url} showed ${leaked.join(', ')}: ${response.body.slice(0, 500)}`,
      ).toEqual([]);
      if (response.statusCode < 300) seen.ok += 1;
      if (response.body.includes(viewer.marker)) seen.ownMarker += 1;
    }),
    { seed, numRuns: Math.max(60, FUZZ_RUNS * 10) },
  );
  return seen;
}

describe('randomized isolation between two organizations', () => {
  it("never shows BRAVO's rows to ALPHA's keys (any key type, any filter, any id)", async () => {
    for (const type of ['secret', 'read_only_secret', 'publishable'] as const) {
      const key = { key: alpha.org.keys[type], type };
      const seen = await readAsAndCheck(alpha, key, [bravo.marker, ...bravo.ids], bravo, FUZZ_SEED + 2);
      // The reads reach real data: without this, "nothing leaked" could mean "nothing answered".
      expect(seen.ok, JSON.stringify([...seen.statuses])).toBeGreaterThan(10);
      expect(seen.ownMarker).toBeGreaterThan(0);
    }
  }, 300_000);

  it("never shows ALPHA's rows to BRAVO's keys", async () => {
    const key = { key: bravo.org.keys.secret, type: 'secret' } as const;
    const seen = await readAsAndCheck(bravo, key, [alpha.marker, ...alpha.ids], alpha, FUZZ_SEED + 3);
    expect(seen.ownMarker).toBeGreaterThan(0);
  }, 300_000);

  it('never shows live rows to a test-mode key of the same organization', async () => {
    // The live organization's own ids other than its twin's id (which /v1/me names) are forbidden.
    const live = alpha.ids.filter((id) => id !== alpha.org.pools.orgs[1] && !alpha.org.keyIds.includes(id));
    const twin: Side = { ...alpha, marker: `${alpha.marker}-twin` };
    const key = { key: alpha.org.keys.testSecret, type: 'secret' } as const;
    const forbidden = [alpha.marker, ...live, bravo.marker, ...bravo.ids];
    const seen = await readAsAndCheck(twin, key, forbidden, bravo, FUZZ_SEED + 4);
    expect(seen.ok).toBeGreaterThan(10);
  }, 300_000);
});
