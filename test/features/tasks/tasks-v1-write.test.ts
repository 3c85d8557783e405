import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { createAgent, createApiKey, createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

interface Task {
  id: string;
  title: string;
  status: string;
  completedAt: string | null;
  assigneeId: string | null;
  dueAt: string | null;
  updatedAt: string;
}

interface Logged {
  type: string;
  livemode: boolean;
  actor: unknown;
  data: { task: { id: string } & Record<string, unknown>; changes?: string[] };
}

const FAST = { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 };
const API_ACTOR = { kind: 'API', userId: null };

let app: FastifyInstance;
let tenant: Tenant;
let other: Tenant;
let key: string;
let agentId: string;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: FAST });
  other = await createTenant(app, { secret: FAST });
  key = tenant.secret.key;
  agentId = (await createAgent(app, tenant.org.id)).id;
});
afterAll(async () => {
  await app.close();
});

const post = (url: string, body?: unknown, as = key, headers: Record<string, string> = {}) =>
  api(app, 'POST', url, { key: as, body, headers });
const patch = (id: string, body: unknown, as = key) =>
  api(app, 'PATCH', `/v1/tasks/${id}`, { key: as, body });
const complete = (id: string, as = key) => post(`/v1/tasks/${id}/complete`, undefined, as);
const remove = (id: string, as = key) => api(app, 'DELETE', `/v1/tasks/${id}`, { key: as });
const get = (id: string, as = key) => api(app, 'GET', `/v1/tasks/${id}`, { key: as });

/** A secret key of the tenant: every scope, access level 3, unless `body` says otherwise. */
async function secretKey(body: Record<string, unknown>): Promise<string> {
  const base = { type: 'secret', scopes: [...SCOPES], accessLevel: 3, ...FAST };
  return (await createApiKey(app, tenant.org.id, { ...base, ...body })).key;
}

async function create(body: Record<string, unknown>, as = key): Promise<Task> {
  return expectStatus(await post('/v1/tasks', body, as), 201).data;
}

/** The `task.*` events of one task, oldest first, read the way an integrator would: GET /v1/event-log. */
async function eventsOfTask(taskId: string, as = key): Promise<Logged[]> {
  const page = expectStatus(
    await api(app, 'GET', '/v1/event-log', { key: as, query: { type: 'task.*', pageSize: '100' } }),
    200,
  );
  const events = (page.data as Logged[]).filter((event) => event.data.task.id === taskId);
  for (const event of events) expect(() => eventCatalog.check(event.type, event.data)).not.toThrow();
  return events;
}

describe('tasks through v1: happy path', () => {
  it('POST /v1/tasks creates a PENDING TODO and records task.created with the API actor', async () => {
    const task = await create({ title: '  Call the notary  ', assigneeId: agentId, type: 'CALL' });
    expect(task).toMatchObject({
      title: 'Call the notary',
      type: 'CALL',
      status: 'PENDING',
      assigneeId: agentId,
    });
    expect(task.id).toMatch(/^task_/);
    expect(expectStatus(await get(task.id), 200).data).toStrictEqual(task);
    const events = await eventsOfTask(task.id);
    expect(events.map((event) => event.type)).toEqual(['task.created']);
    expect(events[0]?.data).toStrictEqual({ task });
    expect(events[0]?.actor).toStrictEqual(API_ACTOR);
  });

  it('PATCH /v1/tasks/{id} changes the fields sent and records task.updated naming them', async () => {
    const task = await create({ title: 'Send the contract' });
    const dueAt = '2027-04-01T09:00:00.000Z';
    const changed = expectStatus(await patch(task.id, { dueAt, assigneeId: agentId }), 200).data as Task;
    expect(changed).toMatchObject({
      title: 'Send the contract',
      dueAt,
      assigneeId: agentId,
      status: 'PENDING',
    });
    const updated = (await eventsOfTask(task.id)).filter((event) => event.type === 'task.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0]?.data).toStrictEqual({ task: changed, changes: ['assigneeId', 'dueAt'] });
    expect(updated[0]?.actor).toStrictEqual(API_ACTOR);
  });

  it('complete sets DONE and completedAt once; completing again answers the same task and records nothing', async () => {
    const task = await create({ title: 'Water the plants' });
    const done = expectStatus(await complete(task.id), 200).data as Task;
    expect(done.status).toBe('DONE');
    expect(Date.parse(done.completedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(task.updatedAt));
    expect(expectStatus(await complete(task.id), 200).data).toStrictEqual(done);
    const events = await eventsOfTask(task.id);
    expect(events.map((event) => event.type)).toEqual(['task.created', 'task.updated']);
    expect(events[1]?.data).toStrictEqual({ task: done, changes: ['status'] });
    expect(events[1]?.actor).toStrictEqual(API_ACTOR);
  });

  it('two simultaneous completes record one task.updated', async () => {
    const task = await create({ title: 'Double click' });
    const answers = await Promise.all([complete(task.id), complete(task.id)]);
    const [first, second] = answers.map((answer) => expectStatus(answer, 200).data as Task);
    expect(second).toStrictEqual(first);
    const events = await eventsOfTask(task.id);
    expect(events.filter((event) => event.type === 'task.updated')).toHaveLength(1);
  });

  it('complete also finishes a CANCELLED task', async () => {
    const task = await create({ title: 'Called off, then done', status: 'CANCELLED' });
    const done = expectStatus(await complete(task.id), 200).data as Task;
    expect(done).toMatchObject({ status: 'DONE', completedAt: expect.any(String) });
  });

  it('DELETE /v1/tasks/{id} removes the task and records the task.deleted tombstone', async () => {
    const task = await create({ title: 'Temporary' });
    expect(expectStatus(await remove(task.id), 200)).toStrictEqual({ data: { id: task.id, deleted: true } });
    expectError(await get(task.id), 404, 'NOT_FOUND');
    expectError(await remove(task.id), 404, 'NOT_FOUND');
    const events = await eventsOfTask(task.id);
    expect(events.map((event) => event.type)).toEqual(['task.created', 'task.deleted']);
    expect(events[1]?.data).toStrictEqual({ task: { id: task.id, deletedAt: expect.any(String) } });
    expect(events[1]?.actor).toStrictEqual(API_ACTOR);
  });

  it('honours Idempotency-Key: the replay answers the same task and creates nothing', async () => {
    const headers = { 'idempotency-key': `task-replay-${Date.now()}` };
    const body = { title: 'Only once' };
    const first = await post('/v1/tasks', body, key, headers);
    const second = await post('/v1/tasks', body, key, headers);
    expect(expectStatus(second, 201)).toStrictEqual(expectStatus(first, 201));
    expect(second.headers['idempotent-replayed']).toBe('true');
    const listed = expectStatus(await api(app, 'GET', '/v1/tasks', { key, query: { pageSize: '48' } }), 200);
    expect((listed.data as Task[]).filter((task) => task.title === 'Only once')).toHaveLength(1);
    expect(await eventsOfTask(first.json().data.id)).toHaveLength(1);
  });

  it('a test-mode key writes to the test twin only', async () => {
    const testKey = await secretKey({ mode: 'test' });
    const task = await create({ title: 'Test mode' }, testKey);
    expectStatus(await get(task.id, testKey), 200);
    expectError(await get(task.id), 404, 'NOT_FOUND');
    const twin = tenant.org.testOrganizationId as string;
    expectStatus(await admin(app, 'GET', `/admin/v1/organizations/${twin}/tasks/${task.id}`), 200);
    expectError(
      await admin(app, 'GET', `/admin/v1/organizations/${tenant.org.id}/tasks/${task.id}`),
      404,
      'NOT_FOUND',
    );
    expectError(await complete(task.id), 404, 'NOT_FOUND');
    expectStatus(await complete(task.id, testKey), 200);
    const events = await eventsOfTask(task.id, testKey);
    expect(events.map((event) => [event.type, event.livemode])).toEqual([
      ['task.created', false],
      ['task.updated', false],
    ]);
    expect(await eventsOfTask(task.id)).toEqual([]);
  });
});

describe('tasks through v1: errors', () => {
  it('answers 400 naming the field: a missing or blank title, an unknown status, a foreign agent', async () => {
    const missing = expectError(await post('/v1/tasks', { type: 'CALL' }), 400, 'VALIDATION_ERROR');
    expect(missing.details?.map((detail) => detail.field)).toContain('body.title');
    const blank = expectError(await post('/v1/tasks', { title: '' }), 400, 'VALIDATION_ERROR');
    expect(blank.details?.map((detail) => detail.field)).toContain('body.title');
    const task = await create({ title: 'Validate me' });
    const status = expectError(await patch(task.id, { status: 'FINISHED' }), 400, 'VALIDATION_ERROR');
    expect(status.details?.map((detail) => detail.field)).toContain('body.status');
    const theirAgent = (await createAgent(app, other.org.id)).id;
    const foreign = expectError(await patch(task.id, { assigneeId: theirAgent }), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(foreign)).toContain('body.assigneeId');
    expectError(await patch(task.id, {}), 400, 'VALIDATION_ERROR');
    expect(expectStatus(await get(task.id), 200).data).toStrictEqual(task);
  });

  it("answers 404 for another organization's task, as for an unknown or malformed id", async () => {
    const mine = await create({ title: 'Mine' });
    const theirs = other.secret.key;
    const missing = 'task_0000000000000000000000';
    for (const id of [mine.id, missing, 'nope']) {
      expectError(await patch(id, { title: 'Theirs' }, theirs), 404, 'NOT_FOUND');
      expectError(await complete(id, theirs), 404, 'NOT_FOUND');
      expectError(await remove(id, theirs), 404, 'NOT_FOUND');
    }
    expect(expectStatus(await get(mine.id), 200).data).toStrictEqual(mine);
    expect(await eventsOfTask(mine.id)).toHaveLength(1);
  });
});

describe('tasks through v1: security', () => {
  it('refuses a secret key without tasks:write (403 naming the scope)', async () => {
    const task = await create({ title: 'Guarded' });
    const reader = await secretKey({ scopes: ['tasks:read'] });
    for (const response of [
      await post('/v1/tasks', { title: 'X' }, reader),
      await patch(task.id, { title: 'X' }, reader),
      await complete(task.id, reader),
      await remove(task.id, reader),
    ]) {
      expect(expectError(response, 403, 'FORBIDDEN').message).toContain('tasks:write');
    }
  });

  it('refuses a key below access level 3, a read-only key and a publishable key (403)', async () => {
    const task = await create({ title: 'Guarded too' });
    const level2 = await secretKey({ accessLevel: 2 });
    for (const refused of [level2, tenant.readOnly.key, tenant.publishable.key]) {
      expectError(await post('/v1/tasks', { title: 'X' }, refused), 403, 'FORBIDDEN');
      expectError(await patch(task.id, { title: 'X' }, refused), 403, 'FORBIDDEN');
      expectError(await complete(task.id, refused), 403, 'FORBIDDEN');
      expectError(await remove(task.id, refused), 403, 'FORBIDDEN');
    }
    expect(expectStatus(await get(task.id), 200).data).toStrictEqual(task);
  });

  it('answers 402 to the writes of a read-only account', async () => {
    const frozen = await createTenant(app);
    const task = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${frozen.org.id}/tasks`, { title: 'Frozen' }),
      201,
    ).data as Task;
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${frozen.org.id}`, { readOnly: true }),
      200,
    );
    const as = frozen.secret.key;
    expectError(await post('/v1/tasks', { title: 'X' }, as), 402, 'PAYMENT_REQUIRED');
    expectError(await patch(task.id, { title: 'X' }, as), 402, 'PAYMENT_REQUIRED');
    expectError(await complete(task.id, as), 402, 'PAYMENT_REQUIRED');
    expectError(await remove(task.id, as), 402, 'PAYMENT_REQUIRED');
  });
});
