import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { purgeEventLog } from '../../../src/features/event-log/event-log.service.ts';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { recordEvent } from '../../../src/platform/events/record.ts';
import { createApiKey, createContact, createTenant, type Tenant } from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildProbeApp } from '../../helpers/probe-app.ts';
import { testDatabase } from '../../helpers/test-app.ts';

interface Envelope {
  event: string;
  id: string;
  type: string;
  timestamp: string;
  organizationId: string;
  livemode: boolean;
  actor: { kind: string | null; userId: string | null };
  data: Record<string, unknown>;
  sequence: number;
}
interface LogPage {
  data: Envelope[];
  meta: { pageSize: number; hasMore: boolean; nextCursor: number | null };
}

let app: FastifyInstance;
let tenant: Tenant;
let testKey: string;
let nameSequence = 0;

const FAST = { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } };

/** A new organization with fast keys, and the sequence its log stands at (creating keys records events). */
async function freshTenant(): Promise<Tenant & { head: number }> {
  const created = await createTenant(app, FAST);
  const head = (await readLog({ order: 'desc', pageSize: '1' }, created.secret.key)).data[0]?.sequence ?? 0;
  return { ...created, head };
}

beforeAll(async () => {
  app = await buildProbeApp();
  tenant = await createTenant(app, FAST);
  testKey = (
    await createApiKey(app, tenant.org.id, {
      type: 'secret',
      mode: 'test',
      scopes: [...SCOPES],
      accessLevel: 3,
    })
  ).key;
});
afterAll(async () => {
  await app.close();
});

async function createLogContact(owner: Tenant = tenant) {
  nameSequence += 1;
  const body = { firstName: `Log${nameSequence}`, email: `log${nameSequence}@example.com` };
  return createContact(app, owner, { via: 'api', body });
}

async function readLog(query: Record<string, string | string[]>, key = tenant.secret.key): Promise<LogPage> {
  return expectStatus(await api(app, 'GET', '/v1/event-log', { key, query }), 200) as LogPage;
}

/** Records a probe event in its own transaction, holding it open `holdMs` before the commit. */
async function recordProbe(organizationId: string, text: string, holdMs = 0): Promise<string> {
  const db = await testDatabase();
  return db.tenantTx(organizationId, async (tx) => {
    const { id } = await recordEvent(tx, {
      type: 'probe.noted',
      data: { note: { text } },
      actor: { kind: 'API', userId: null },
    });
    if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
    return id;
  });
}

describe('GET /v1/event-log', () => {
  it('lists the events in commit order as delivery envelopes with 1, 2, 3… sequences', async () => {
    const fresh = await freshTenant();
    const contacts = [];
    for (let i = 0; i < 3; i += 1) contacts.push(await createLogContact(fresh));
    const all = await readLog({}, fresh.secret.key);
    expect(all.data.map((e) => e.sequence)).toEqual(all.data.map((_, i) => i + 1));
    const page = await readLog({ after: String(fresh.head) }, fresh.secret.key);
    expect(page.data.map((e) => e.type)).toEqual(['contact.created', 'contact.created', 'contact.created']);
    expect(page.data.map((e) => (e.data.contact as { id: string }).id)).toEqual(contacts.map((c) => c.id));
    expect(page.data.map((e) => e.sequence)).toEqual([1, 2, 3].map((n) => fresh.head + n));
    expect(page.data[0]).toMatchObject({
      event: page.data[0]?.type,
      organizationId: fresh.org.id,
      livemode: true,
      actor: { kind: 'API' },
    });
    expect(Object.keys(page.data[0] ?? {})).toEqual([
      'event',
      'id',
      'type',
      'timestamp',
      'organizationId',
      'livemode',
      'actor',
      'data',
      'sequence',
    ]);
    expect(page.meta).toEqual({ pageSize: 25, hasMore: false, nextCursor: page.data.at(-1)?.sequence });
  });

  it('pages with after = meta.nextCursor, and the last page still gives a cursor to poll from', async () => {
    const fresh = await freshTenant();
    for (let i = 0; i < 5; i += 1) await recordProbe(fresh.org.id, `p${i}`);
    const h = fresh.head;
    const at = (n: number) => String(h + n);
    const first = await readLog({ pageSize: '2', after: at(0) }, fresh.secret.key);
    expect(first.data.map((e) => e.sequence - h)).toEqual([1, 2]);
    expect(first.meta).toEqual({ pageSize: 2, hasMore: true, nextCursor: h + 2 });
    const second = await readLog({ pageSize: '2', after: at(2) }, fresh.secret.key);
    expect(second.data.map((e) => e.sequence - h)).toEqual([3, 4]);
    const last = await readLog({ pageSize: '2', after: at(4) }, fresh.secret.key);
    expect(last.data.map((e) => e.sequence - h)).toEqual([5]);
    expect(last.meta).toEqual({ pageSize: 2, hasMore: false, nextCursor: h + 5 });
    const empty = await readLog({ after: at(5) }, fresh.secret.key);
    expect(empty).toEqual({ data: [], meta: { pageSize: 25, hasMore: false, nextCursor: h + 5 } });
    await recordProbe(fresh.org.id, 'later');
    expect((await readLog({ after: at(5) }, fresh.secret.key)).data.map((e) => e.sequence - h)).toEqual([6]);
  });

  it('reads newest first with order=desc, paging with before', async () => {
    const fresh = await freshTenant();
    for (let i = 0; i < 3; i += 1) await recordProbe(fresh.org.id, `d${i}`);
    const h = fresh.head;
    const first = await readLog({ order: 'desc', pageSize: '2' }, fresh.secret.key);
    expect(first.data.map((e) => e.sequence - h)).toEqual([3, 2]);
    expect(first.meta).toEqual({ pageSize: 2, hasMore: true, nextCursor: h + 2 });
    const range = { order: 'desc', pageSize: '2', before: String(h + 2), after: String(h) };
    const second = await readLog(range, fresh.secret.key);
    expect(second.data.map((e) => e.sequence - h)).toEqual([1]);
    expect(second.meta.nextCursor).toBeNull();
  });

  it('filters by exact types, object wildcards and creation time', async () => {
    const fresh = await freshTenant();
    await createLogContact(fresh);
    await recordProbe(fresh.org.id, 'typed');
    const probes = await readLog({ type: 'probe.noted' }, fresh.secret.key);
    expect(probes.data.map((e) => e.type)).toEqual(['probe.noted']);
    const both = await readLog({ type: ['probe.*', 'contact.created'] }, fresh.secret.key);
    expect(both.data.map((e) => e.type)).toEqual(['contact.created', 'probe.noted']);
    expect((await readLog({ type: '*' }, fresh.secret.key)).data).toHaveLength(fresh.head + 2);
    expect((await readLog({ type: 'api_key.*' }, fresh.secret.key)).data).toHaveLength(fresh.head);
    expect((await readLog({ createdAfter: '2999-01-01' }, fresh.secret.key)).data).toEqual([]);
    expect((await readLog({ createdBefore: '2000-01-01' }, fresh.secret.key)).data).toEqual([]);
  });

  it('gets one event by id, and 404 for an unknown id or another organization’s event', async () => {
    const id = await recordProbe(tenant.org.id, 'one');
    const one = expectStatus(await api(app, 'GET', `/v1/event-log/${id}`, { key: tenant.secret.key }), 200);
    expect(one.data).toMatchObject({
      id,
      type: 'probe.noted',
      event: 'probe.noted',
      data: { note: { text: 'one' } },
    });
    expect(one.data.sequence).toBeGreaterThan(0);
    const other = await freshTenant();
    expectError(await api(app, 'GET', `/v1/event-log/${id}`, { key: other.secret.key }), 404, 'NOT_FOUND');
    expectError(
      await api(app, 'GET', '/v1/event-log/evt_nope', { key: tenant.secret.key }),
      404,
      'NOT_FOUND',
    );
  });

  it('keeps live and test events apart, and organizations apart', async () => {
    const liveId = await recordProbe(tenant.org.id, 'live');
    const testId = await recordProbe(tenant.org.testOrganizationId as string, 'test');
    const live = await readLog({ type: 'probe.noted', pageSize: '100', order: 'desc' });
    expect(live.data.some((e) => e.id === liveId)).toBe(true);
    expect(live.data.some((e) => e.id === testId)).toBe(false);
    expect(live.data.every((e) => e.livemode && e.organizationId === tenant.org.id)).toBe(true);
    const test = await readLog({ type: 'probe.noted', pageSize: '100', order: 'desc' }, testKey);
    expect(test.data.map((e) => e.id)).toContain(testId);
    expect(test.data.every((e) => !e.livemode)).toBe(true);
    const stranger = await freshTenant();
    expect((await readLog({ type: 'probe.noted' }, stranger.secret.key)).data).toEqual([]);
  });

  it('refuses bad parameters with a 400 naming them, and keys without events:read', async () => {
    const key = tenant.secret.key;
    for (const [query, field] of [
      [{ pageSize: '101' }, 'query.pageSize'],
      [{ after: '-1' }, 'query.after'],
      [{ after: 'abc' }, 'query.after'],
      [{ type: 'nothing.here' }, 'query.type'],
      [{ order: 'sideways' }, 'query.order'],
      [{ createdAfter: '2027-02-30' }, 'query.createdAfter'],
      [{ cursor: 'x' }, 'query.cursor'],
    ] as const) {
      const error = expectError(
        await api(app, 'GET', '/v1/event-log', { key, query }),
        400,
        'VALIDATION_ERROR',
      );
      expect(JSON.stringify(error.details ?? error)).toContain(field.replace('query.', ''));
    }
    expectError(await api(app, 'GET', '/v1/event-log', { key: tenant.publishable.key }), 403, 'FORBIDDEN');
    const narrow = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['contacts:read'] });
    expectError(await api(app, 'GET', '/v1/event-log', { key: narrow.key }), 403, 'FORBIDDEN');
    expectStatus(await api(app, 'GET', '/v1/event-log', { key: tenant.readOnly.key }), 200);
  });
});

describe('no event is ever skipped', () => {
  it('a reader paging with after while writers commit out of order sees 2,000 events exactly once', async () => {
    const fresh = await freshTenant();
    const writers = 8;
    const perWriter = 250;
    const recorded: string[] = [];
    let writing = true;
    const start = fresh.head;
    const write = async (writer: number) => {
      for (let i = 0; i < perWriter; i += 1) {
        // Transactions held open 0-3 ms: on PostgreSQL later ones often commit first.
        recorded.push(await recordProbe(fresh.org.id, `w${writer}-${i}`, (writer + i) % 4));
      }
    };
    const seen: Envelope[] = [];
    const read = async () => {
      let after = start;
      for (;;) {
        const done = !writing;
        const page = await readLog({ after: String(after), pageSize: '100' }, fresh.secret.key);
        seen.push(...page.data);
        after = page.meta.nextCursor ?? after;
        if (done && !page.meta.hasMore && page.data.length === 0) return;
      }
    };
    const reader = read();
    await Promise.all(Array.from({ length: writers }, (_, w) => write(w)));
    writing = false;
    await reader;
    expect(recorded).toHaveLength(writers * perWriter);
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual([...recorded].sort());
    expect(seen.map((e) => e.sequence)).toEqual(seen.map((_, i) => start + i + 1));
  }, 120_000);

  it('numbers without holes: a rolled-back event takes its number with it', async () => {
    const fresh = await freshTenant();
    const db = await testDatabase();
    await recordProbe(fresh.org.id, 'kept');
    await expect(
      db.tenantTx(fresh.org.id, async (tx) => {
        await recordEvent(tx, {
          type: 'probe.noted',
          data: { note: { text: 'lost' } },
          actor: { kind: 'API', userId: null },
        });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await recordProbe(fresh.org.id, 'kept too');
    const page = await readLog({ after: String(fresh.head) }, fresh.secret.key);
    expect(page.data.map((e) => [e.sequence - fresh.head, e.data.note])).toEqual([
      [1, { text: 'kept' }],
      [2, { text: 'kept too' }],
    ]);
  });
});

describe('retention', () => {
  it('purges the events older than EVENT_LOG_RETENTION_DAYS in batches, and keeps the rest', async () => {
    const fresh = await freshTenant();
    const db = await testDatabase();
    const old = [await recordProbe(fresh.org.id, 'old1'), await recordProbe(fresh.org.id, 'old2')];
    const recent = await recordProbe(fresh.org.id, 'recent');
    await db.systemTx((tx) =>
      queryRows(
        tx,
        sql`UPDATE events SET created_at = now() - interval '31 days' WHERE id IN (${old[0]}, ${old[1]})`,
      ),
    );
    expect(await purgeEventLog(db, 30, { batchSize: 1 })).toBeGreaterThanOrEqual(2);
    const page = await readLog({ type: 'probe.noted' }, fresh.secret.key);
    expect(page.data.map((e) => e.id)).toEqual([recent]);
    expect(page.data[0]?.sequence).toBe(fresh.head + 3);
  });
});
