import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../src/db/schema.ts';
import { eventCatalog, fieldTree } from '../../src/platform/events/catalog.ts';
import { recordEvent } from '../../src/platform/events/record.ts';
import { createApiKey, createTenant, type Tenant } from '../helpers/factories.ts';
import { buildProbeApp } from '../helpers/probe-app.ts';
import { testDatabase } from '../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildProbeApp();
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

async function eventsOf(organizationId: string, type: string) {
  const db = await testDatabase();
  return db.tenantTx(organizationId, (tx) =>
    tx
      .select()
      .from(events)
      .where(and(eq(events.organizationId, organizationId), eq(events.type, type))),
  );
}

describe('recordEvent', () => {
  it('writes the SPEC envelope in the caller transaction', async () => {
    const db = await testDatabase();
    const envelope = await db.tenantTx(tenant.org.id, (tx) =>
      recordEvent(tx, {
        type: 'probe.noted',
        data: { note: { text: 'hi' } },
        actor: { kind: 'USER', userId: 'usr_1' },
      }),
    );
    expect(envelope).toMatchObject({
      type: 'probe.noted',
      organizationId: tenant.org.id,
      livemode: true,
      actor: { kind: 'USER', userId: 'usr_1' },
      data: { note: { text: 'hi' } },
    });
    expect(envelope.id).toMatch(/^evt_[0-9A-Za-z]{22}$/);
    expect(new Date(envelope.timestamp).toISOString()).toBe(envelope.timestamp);
    const stored = (await eventsOf(tenant.org.id, 'probe.noted')).find((row) => row.id === envelope.id);
    expect(stored?.data).toEqual({ note: { text: 'hi' } });
  });

  it('disappears with the transaction when the change rolls back', async () => {
    const db = await testDatabase();
    let id = '';
    await expect(
      db.tenantTx(tenant.org.id, async (tx) => {
        id = (
          await recordEvent(tx, {
            type: 'probe.noted',
            data: { note: { text: 'gone' } },
            actor: { kind: 'API', userId: null },
          })
        ).id;
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect((await eventsOf(tenant.org.id, 'probe.noted')).some((row) => row.id === id)).toBe(false);
  });

  it('marks events of the test twin livemode false with the twin as organizationId', async () => {
    const db = await testDatabase();
    const twin = tenant.org.testOrganizationId as string;
    const envelope = await db.tenantTx(twin, (tx) =>
      recordEvent(tx, {
        type: 'probe.noted',
        data: { note: { text: 't' } },
        actor: { kind: 'API', userId: null },
      }),
    );
    expect(envelope).toMatchObject({ organizationId: twin, livemode: false });
  });

  it('refuses a type outside the catalog, a payload breaking its schema, and a call outside a tenant', async () => {
    const db = await testDatabase();
    await expect(
      db.tenantTx(tenant.org.id, (tx) =>
        recordEvent(tx, { type: 'nope.nope', data: {}, actor: { kind: 'API', userId: null } }),
      ),
    ).rejects.toThrow(/not in the catalog/);
    await expect(
      db.tenantTx(tenant.org.id, (tx) =>
        recordEvent(tx, {
          type: 'probe.noted',
          data: { note: { text: 1 } },
          actor: { kind: 'API', userId: null },
        }),
      ),
    ).rejects.toThrow(/does not match its schema/);
    await expect(
      db.systemTx((tx) =>
        recordEvent(tx, {
          type: 'probe.noted',
          data: { note: { text: 'x' } },
          actor: { kind: 'API', userId: null },
        }),
      ),
    ).rejects.toThrow(/tenant transaction/);
  });

  it('records api_key.created when the operator creates a key, without the key', async () => {
    const key = await createApiKey(app, tenant.org.id, { type: 'secret', name: 'evented' });
    const rows = await eventsOf(tenant.org.id, 'api_key.created');
    const row = rows.find((r) => (r.data.apiKey as { id: string }).id === key.id);
    expect(row?.actor).toEqual({ kind: 'SYSTEM', userId: null });
    expect(JSON.stringify(row?.data)).not.toContain(key.key);
  });
});

describe('catalog', () => {
  it('is listed whole in docs/webhooks.md (npm run docs:events writes the table)', () => {
    // A process of its own: this one's catalog also holds the probe app's test-only types.
    const check = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/docs-events.ts', '--check'], {
      cwd: new URL('../..', import.meta.url).pathname,
      encoding: 'utf8',
    });
    expect(check.status, check.stderr).toBe(0);
    const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
    for (const type of ['webhook.created', 'webhook.recovered', 'contact.merged'])
      expect(doc).toContain(`| \`${type}\``);
  });

  it('has an example matching its schema for every type, and a field tree with null leaves', () => {
    const definitions = eventCatalog.list();
    expect(definitions.map((d) => d.type)).toEqual(
      expect.arrayContaining(['api_key.created', 'api_key.updated']),
    );
    for (const definition of definitions) {
      expect(Value.Check(definition.schema, definition.example), definition.type).toBe(true);
    }
    expect(fieldTree(eventCatalog.get('api_key.updated')?.schema as never)).toEqual({
      apiKey: {
        id: null,
        type: null,
        mode: null,
        name: null,
        keyPrefix: null,
        scopes: [],
        accessLevel: null,
        status: null,
        expiresAt: null,
        createdAt: null,
      },
      changes: [],
    });
  });
});
