/**
 * The events of issue 21's v1 writes as an integrator receives them: a real webhook receiver
 * subscribed to everything, the delivery worker running, and each write's events arriving signed,
 * with actor API and a payload the catalog's schema accepts. (Appointments and visit requests:
 * test/features/leads/visit-requests.test.ts.)
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningJobs } from '../../../src/platform/jobs/scheduler.ts';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import { createTenant, type Tenant } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { createPipeline, stageNamed } from '../deals/support.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { eventually, startWorker, subscribe } from '../webhooks/support.ts';

let app: FastifyInstance;
let worker: RunningJobs;
let receiver: Receiver;
let tenant: Tenant;

interface Delivered {
  id: string;
  sequence: number;
  type: string;
  actor: { kind: string };
  data: Record<string, unknown>;
}

/** The events received so far, each once (deliveries are at least once), in arrival order. */
function received(): Delivered[] {
  const byId = new Map<string, Delivered>();
  for (const request of receiver.at('/all')) {
    const event = JSON.parse(request.body) as Delivered;
    if (!byId.has(event.id)) byId.set(event.id, event);
  }
  return [...byId.values()];
}

/** The organization's last event `sequence` (the event log's head). */
async function head(): Promise<number> {
  const last = expectStatus(
    await api(app, 'GET', '/v1/event-log', { key: key(), query: { order: 'desc', pageSize: '1' } }),
    200,
  ).data[0];
  return last?.sequence ?? 0;
}

/**
 * Runs `write`, then waits for the events it caused (those after the log's head and up to its new
 * head, by type, in any order: deliveries need not arrive in order) and returns them.
 */
async function eventsOf(write: () => Promise<unknown>, types: string[]): Promise<Delivered[]> {
  const from = await head();
  await write();
  const to = await head();
  return eventually(async () => {
    const fresh = received().filter((event) => event.sequence > from && event.sequence <= to);
    expect(fresh.map((event) => event.type).sort()).toEqual([...types].sort());
    return fresh;
  }, 15_000);
}

const key = () => tenant.secret.key;
const v1 = (method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: Record<string, unknown>) =>
  api(app, method, path, { key: key(), ...(body ? { body } : {}) });

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  receiver = await new Receiver().start();
  worker = startWorker(await testDatabase());
  tenant = await createTenant(app, { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } });
  await subscribe(app, key(), receiver.url('/all'), ['*']);
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await app.close();
});

describe('issue 21 writes, as a webhook receiver sees them', () => {
  it('deals, tasks, notes, consents, a merge and an erasure each deliver their events, actor API', async () => {
    const pipeline = await createPipeline(app, tenant.org.id);
    const person = expectStatus(
      await v1('POST', '/v1/contacts', { firstName: 'Greta', phone: '+34 655 300 400' }),
      201,
    ).data.id as string;
    const duplicate = expectStatus(
      await v1('POST', '/v1/contacts', { firstName: 'Greta', lastName: 'Holm' }),
      201,
    ).data.id as string;
    let dealId = '';
    let taskId = '';
    const steps: [string, () => Promise<unknown>, string[]][] = [
      [
        'deal create',
        async () => {
          dealId = expectStatus(await v1('POST', '/v1/deals', { title: 'Flat', contactId: duplicate }), 201)
            .data.id;
        },
        ['deal.created'],
      ],
      ['deal update', () => v1('PATCH', `/v1/deals/${dealId}`, { value: 250_000 }), ['deal.updated']],
      [
        'deal won',
        () => v1('POST', `/v1/deals/${dealId}/move`, { stageId: stageNamed(pipeline, 'Won').id }),
        ['deal.stage_changed', 'deal.won'],
      ],
      [
        'task create',
        async () => {
          taskId = expectStatus(await v1('POST', '/v1/tasks', { title: 'Call', contactId: person }), 201).data
            .id;
        },
        ['task.created'],
      ],
      ['task complete', () => v1('POST', `/v1/tasks/${taskId}/complete`), ['task.updated']],
      [
        'note',
        () => v1('POST', `/v1/contacts/${person}/notes`, { body: 'Likes terraces' }),
        ['note.created'],
      ],
      [
        'consent',
        () => v1('PUT', `/v1/contacts/${person}/consents/EMAIL`, { status: 'GRANTED', source: 'form' }),
        ['contact.consent_changed'],
      ],
      [
        'merge',
        () => v1('POST', `/v1/contacts/${person}/merge`, { sourceContactId: duplicate }),
        ['deal.updated', 'contact.deleted', 'contact.merged'],
      ],
      ['task delete', () => v1('DELETE', `/v1/tasks/${taskId}`), ['task.deleted']],
      ['erasure', () => v1('DELETE', `/v1/contacts/${person}`), ['deal.updated', 'contact.deleted']],
      ['deal delete', () => v1('DELETE', `/v1/deals/${dealId}`), ['deal.deleted']],
    ];
    for (const [name, write, types] of steps) {
      const events = await eventsOf(async () => {
        const response = await write();
        if (response && typeof response === 'object' && 'statusCode' in response)
          expect((response as { statusCode: number }).statusCode, name).toBeLessThan(300);
      }, types);
      for (const event of events) {
        expect(event.actor.kind, `${name}: ${event.type}`).toBe('API');
        expect(() => eventCatalog.check(event.type, event.data), `${name}: ${event.type}`).not.toThrow();
      }
    }
    // What the merge and the erasure told: both ids, then a deal without its contact.
    const merged = received().find((event) => event.type === 'contact.merged');
    expect(merged?.data).toMatchObject({
      sourceContactId: duplicate,
      contact: { id: person, lastName: 'Holm' },
    });
    const unlinked = received()
      .filter((event) => event.type === 'deal.updated')
      .at(-1);
    expect(unlinked?.data).toMatchObject({ deal: { id: dealId, contactId: null }, changes: ['contactId'] });
  }, 90_000);
});
