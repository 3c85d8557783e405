/**
 * A feature is a folder and one line in src/features.ts (issue 38): everything it declares is in its
 * manifest, and every registry of the service reads it from there. This file serves the features of
 * src/features.ts plus one of its own, which declares every field a manifest has (the `satisfies`
 * below fails to compile when a field is added without being proved here), and checks each registry
 * that reads a field finds the feature's declaration: routes, schemas, scopes, tags, events, MCP tools
 * and summary counts, metrics, jobs, start steps.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Gauge } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURES } from '../src/features.ts';
import { workerJobs } from '../src/jobs.ts';
import { callerOf } from '../src/platform/auth/auth.plugin.ts';
import { SCOPES } from '../src/platform/auth/scopes.ts';
import { openSecretBox } from '../src/platform/crypto/secrets-key.ts';
import { defineEvent, eventCatalog } from '../src/platform/events/catalog.ts';
import { defineFeature, type FeatureManifest } from '../src/platform/features/manifest.ts';
import { SECRET_KEYS } from '../src/platform/http/route-config.ts';
import { DataOf } from '../src/platform/http/schemas.ts';
import { defineTool } from '../src/platform/mcp/mcp-tool.ts';
import { PERSONAL_DATA_PLACES, type ContactHandover } from '../src/platform/privacy/personal-data.ts';
import { runStartSteps } from '../src/startup.ts';
import { createApiKey, createOrganization } from './helpers/factories.ts';
import { admin, api, expectStatus } from './helpers/http.ts';
import { buildTestApp, testConfig, testDatabase } from './helpers/test-app.ts';
import { callOk, connect, listen } from './mcp/support.ts';

const GadgetMade = defineEvent({
  type: 'gadget.made',
  description: 'Test-only: a gadget was made.',
  schema: Type.Object({ gadget: Type.Object({ name: Type.String() }) }, { additionalProperties: false }),
  example: { gadget: { name: 'sprocket' } },
});

const GadgetSchema = Type.Object(
  { name: Type.String(), organizationId: Type.String() },
  { $id: 'Gadget', additionalProperties: false, description: 'Test-only: a gadget' },
);

let started = 0;
const handedOver: ContactHandover[] = [];
const gadgetGauge = new Gauge({ name: 'gadgets_made', help: 'Test-only: gadgets made', registers: [] });

const gadgets = {
  name: 'gadgets',
  scopes: [{ name: 'gadgets:read', description: 'reads gadgets (test-only)' }],
  tags: [{ name: 'Gadgets', description: 'Test-only gadgets' }],
  examples: { fields: { 'Gadget.name': 'sprocket-42' } },
  personalData: {
    places: [
      { table: 'gadgets', link: null, personal: [], other: ['name'], onErase: 'NONE', note: 'Test-only.' },
    ],
    handover: {
      name: 'gadgets',
      run: async (_tx, handover) => {
        handedOver.push(handover);
        return 0;
      },
    },
  },
  schemas: [GadgetSchema],
  routes: [
    async (app) => {
      app.get(
        '/v1/gadgets/one',
        {
          config: { auth: { scope: 'gadgets:read', keyTypes: SECRET_KEYS, write: false } },
          schema: {
            operationId: 'gadgets.get',
            summary: 'Test-only: one gadget',
            tags: ['Gadgets'],
            response: { 200: DataOf(Type.Ref('Gadget')) },
          },
        },
        async (request) => ({
          data: { name: 'sprocket', organizationId: callerOf(request).organization.id },
        }),
      );
    },
  ],
  credentials: () => [],
  mcpTools: [
    defineTool({
      name: 'count_gadgets',
      title: 'Count gadgets',
      description: 'Test-only: how many gadgets there are.',
      scopes: ['gadgets:read'],
      input: Type.Object({}, { additionalProperties: false }),
      output: Type.Object({ count: Type.Integer() }, { additionalProperties: false }),
      run: async () => ({ count: 3 }),
      summarize: (result) => `${result.count} gadgets`,
    }),
  ],
  mcpCounts: [
    { name: 'gadgets', description: 'Gadgets (gadgets:read)', scope: 'gadgets:read', count: async () => 3 },
  ],
  jobs: () => [{ name: 'gadgets.polish', intervalMs: 60_000, run: async () => undefined }],
  metrics: () => [gadgetGauge],
  events: [GadgetMade],
  atStart: async () => {
    started += 1;
  },
} satisfies Required<FeatureManifest>;

const WITH_GADGETS: readonly FeatureManifest[] = [...FEATURES, defineFeature(gadgets)];

describe('a feature declared only by its manifest (one more line in the list)', () => {
  let app: FastifyInstance;
  let key: string;

  beforeAll(async () => {
    app = await buildTestApp({}, { features: WITH_GADGETS });
    const org = await createOrganization(app);
    key = (await createApiKey(app, org.id, { type: 'secret', scopes: ['gadgets:read'] })).key;
  });
  afterAll(async () => {
    await app.close();
  });

  it('serves its routes with its scope, and a key may hold that scope', async () => {
    expect(SCOPES).toContain('gadgets:read');
    expect(expectStatus(await api(app, 'GET', '/v1/gadgets/one', { key }), 200).data.name).toBe('sprocket');
    const org = await createOrganization(app);
    const other = await createApiKey(app, org.id, { type: 'secret', scopes: ['contacts:read'] });
    expect((await api(app, 'GET', '/v1/gadgets/one', { key: other.key })).statusCode).toBe(403);
    const refused = await admin(app, 'POST', `/admin/v1/organizations/${org.id}/api-keys`, {
      type: 'secret',
      scopes: ['gizmos:read'],
    });
    expect(refused.statusCode).toBe(400);
  });

  it('documents its routes, schemas, tags, scope and events in /v1/openapi.json', async () => {
    const document = expectStatus(await api(app, 'GET', '/v1/openapi.json'), 200);
    expect(document.paths['/v1/gadgets/one'].get.tags).toEqual(['Gadgets']);
    expect(document.tags).toContainEqual({ name: 'Gadgets', description: 'Test-only gadgets' });
    expect(document.components.schemas.Gadget.properties.name.examples).toEqual(['sprocket-42']);
    expect(document.webhooks['gadget.made']).toBeDefined();
    expect(JSON.stringify(document.paths['/admin/v1/organizations/{orgId}/api-keys'])).toContain(
      'gadgets:read',
    );
  });

  it('records its events in the catalog the event API serves', async () => {
    expect(eventCatalog.get('gadget.made')).toBe(GadgetMade);
    const catalog = expectStatus(await api(app, 'GET', '/v1/events', { key: await eventsKey(app) }), 200);
    expect(JSON.stringify(catalog)).toContain('gadget.made');
  });

  it('offers its MCP tool, and its count in get_summary', async () => {
    const client = await connect(await listen(app), key);
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toContain('count_gadgets');
      const { data } = await callOk<{ counts: Record<string, number> }>(client, 'get_summary');
      expect(data.counts).toEqual({ gadgets: 3 });
    } finally {
      await client.close();
    }
  });

  it('lists its personal-data places, and hands its records over when a contact is erased', async () => {
    expect(PERSONAL_DATA_PLACES.map((place) => place.table)).toContain('gadgets');
    const org = await createOrganization(app);
    const writer = await createApiKey(app, org.id, {
      type: 'secret',
      scopes: ['contacts:write'],
      accessLevel: 3,
    });
    const contact = expectStatus(
      await api(app, 'POST', '/v1/contacts', {
        key: writer.key,
        body: { firstName: 'Gadget', lastName: 'Owner' },
      }),
      201,
    ).data;
    expectStatus(await api(app, 'DELETE', `/v1/contacts/${contact.id}`, { key: writer.key }), 200);
    expect(handedOver.filter((handover) => handover.from === contact.id)).toMatchObject([
      { organizationId: org.id, from: contact.id, to: null },
    ]);
  });

  it('shows its metrics', async () => {
    const metrics = await admin(app, 'GET', '/metrics');
    expect(metrics.body).toContain('gadgets_made');
  });

  it('schedules its jobs in the worker and runs its start step', async () => {
    const db = await testDatabase();
    expect(workerJobs(db, { features: WITH_GADGETS }).map((job) => job.name)).toContain('gadgets.polish');
    expect(workerJobs(db).map((job) => job.name)).not.toContain('gadgets.polish');
    const before = started;
    await runStartSteps(db, openSecretBox(testConfig()), { info: () => undefined }, WITH_GADGETS);
    expect(started).toBe(before + 1);
  });
});

async function eventsKey(app: FastifyInstance): Promise<string> {
  const org = await createOrganization(app);
  return (await createApiKey(app, org.id, { type: 'secret', scopes: ['events:read'] })).key;
}

describe('platform/ names no feature', () => {
  it('holds no scope name or tag name a manifest declares', () => {
    const files = readdirSync('src/platform', { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => ({ file, text: readFileSync(join('src/platform', file), 'utf8') }));
    const words = [
      ...FEATURES.flatMap((feature) => (feature.scopes ?? []).map((scope) => scope.name)),
      ...FEATURES.flatMap((feature) => (feature.tags ?? []).map((tag) => `'${tag.name}'`)),
    ];
    const found = files.flatMap(({ file, text }) =>
      words.filter((word) => text.includes(word)).map((word) => `${file}: ${word}`),
    );
    expect(found).toEqual([]);
  });
});
