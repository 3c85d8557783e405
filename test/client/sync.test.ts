/**
 * The client's cursor iterators against a listening server: `eventLog.iterate` walks the log page
 * after page from any position.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/platform/events/record.ts';
import { createTenant, type Tenant } from '../helpers/factories.ts';
import { buildProbeApp } from '../helpers/probe-app.ts';
import { testDatabase } from '../helpers/test-app.ts';
import { clientFor, listen } from './support.ts';

let app: FastifyInstance;
let baseUrl: string;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildProbeApp();
  baseUrl = await listen(app);
  tenant = await createTenant(app, { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } });
});
afterAll(async () => {
  await app.close();
});

async function record(count: number): Promise<string[]> {
  const db = await testDatabase();
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    ids.push(
      await db.tenantTx(tenant.org.id, async (tx) => {
        const event = await recordEvent(tx, {
          type: 'probe.noted',
          data: { note: { text: `n${i}` } },
          actor: { kind: 'API', userId: null },
        });
        return event.id;
      }),
    );
  }
  return ids;
}

describe('eventLog.iterate', () => {
  it('yields every event after a position, in sequence order, over several pages', async () => {
    const client = clientFor(baseUrl, tenant.secret.key);
    const head = (await client.eventLog.list({ order: 'desc', pageSize: 1 })).data[0]?.sequence ?? 0;
    const ids = await record(7);
    const seen = [];
    for await (const event of client.eventLog.iterate({
      after: head,
      pageSize: 3,
      type: ['probe.noted' as 'contact.created'],
    }))
      seen.push(event);
    expect(seen.map((event) => event.id)).toEqual(ids);
    expect(seen.map((event) => event.sequence)).toEqual(ids.map((_, i) => head + i + 1));
  });

  it('asks nothing before the first item is wanted, and ends on an empty log tail', async () => {
    const client = clientFor(baseUrl, tenant.secret.key);
    const head = (await client.eventLog.list({ order: 'desc', pageSize: 1 })).data[0]?.sequence ?? 0;
    const iterator = client.eventLog.iterate({ after: head })[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });
});
