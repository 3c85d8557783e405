import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPendingTasks } from '../../../src/features/tasks/tasks.service.ts';
import { operatorCallerOf } from '../../../src/platform/auth/credentials.ts';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import { pageRequest } from '../../../src/platform/http/pagination.ts';
import {
  busyPublishableKey,
  createAgent,
  createApiKey,
  createContact,
  createTenant,
  type Tenant,
} from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { lastEvent, utcDate } from '../appointments/support.ts';

let app: FastifyInstance;
let tenant: Tenant;
let other: Tenant;
let key: string;
let otherKey: string;

/** The finder search each contact comes from: Marta, looking in a city with no listing. */
const VISITOR = { firstName: 'Marta', city: 'Nowhere' };

const base = (orgId = tenant.org.id) => `/admin/v1/organizations/${orgId}/tasks`;

interface Task {
  id: string;
  title: string;
  description: string | null;
  type: string;
  status: string;
  dueAt: string | null;
  assigneeId: string | null;
  contactId: string | null;
  appointmentId: string | null;
  completedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

async function create(body: Record<string, unknown>, orgId = tenant.org.id): Promise<Task> {
  return expectStatus(await admin(app, 'POST', base(orgId), body), 201).data;
}

async function patch(id: string, body: Record<string, unknown>): Promise<Task> {
  return expectStatus(await admin(app, 'PATCH', `${base()}/${id}`, body), 200).data;
}

async function appointmentOf(orgId: string, agentId: string, contactId: string, startsAt: string) {
  const response = await admin(app, 'POST', `/admin/v1/organizations/${orgId}/appointments`, {
    agentId,
    contactId,
    startsAt,
  });
  return expectStatus(response, 201).data as { id: string };
}

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
  other = await createTenant(app);
  key = await busyPublishableKey(app, tenant.org.id);
  otherKey = await busyPublishableKey(app, other.org.id);
});
afterAll(async () => {
  await app.close();
});

describe('admin tasks: happy path', () => {
  it('creates a PENDING TODO by default and records task.created', async () => {
    const created = await create({ title: '  Call the notary  ' });
    expect(created).toMatchObject({
      title: 'Call the notary',
      description: null,
      type: 'TODO',
      status: 'PENDING',
      dueAt: null,
      assigneeId: null,
      contactId: null,
      appointmentId: null,
      completedAt: null,
    });
    expect(created.id).toMatch(/^task_/);
    const event = await lastEvent(tenant.org.id, 'task.created');
    expect(event.data).toEqual({ task: created });
    expect(event.actor).toEqual({ kind: 'SYSTEM', userId: null });
  });

  it('links an assignee, a contact and an appointment of the organization', async () => {
    const agent = await createAgent(app, tenant.org.id);
    const contact = await createContact(app, tenant.org.id, { key, body: VISITOR });
    const appointment = await appointmentOf(tenant.org.id, agent.id, contact.id, '2030-05-06T10:00:00Z');
    const created = await create({
      title: 'Send the valuation report',
      description: 'PDF with the comparables',
      type: 'EMAIL',
      dueAt: '2030-05-07T09:00:00+02:00',
      assigneeId: agent.id,
      contactId: contact.id,
      appointmentId: appointment.id,
    });
    expect(created).toMatchObject({
      description: 'PDF with the comparables',
      type: 'EMAIL',
      dueAt: '2030-05-07T07:00:00.000Z',
      assigneeId: agent.id,
      contactId: contact.id,
      appointmentId: appointment.id,
    });
    expect(expectStatus(await admin(app, 'GET', `${base()}/${created.id}`), 200).data).toEqual(created);
    for (const apiKey of [tenant.secret.key, tenant.readOnly.key]) {
      expect(expectStatus(await api(app, 'GET', `/v1/tasks/${created.id}`, { key: apiKey }), 200)).toEqual({
        data: created,
      });
    }
    // Deleting the appointment leaves the task, unlinked.
    expectStatus(
      await admin(app, 'DELETE', `/admin/v1/organizations/${tenant.org.id}/appointments/${appointment.id}`),
      200,
    );
    expect(
      expectStatus(await admin(app, 'GET', `${base()}/${created.id}`), 200).data.appointmentId,
    ).toBeNull();
  });

  it('stamps completedAt when DONE, keeps it while DONE, clears it otherwise; records task.updated', async () => {
    const created = await create({ title: 'Follow up', type: 'FOLLOW_UP', dueAt: '2030-05-08T10:00:00Z' });
    const before = Date.now();
    const done = await patch(created.id, { status: 'DONE' });
    expect(done.status).toBe('DONE');
    const completedAt = Date.parse(done.completedAt as string);
    expect(completedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(completedAt).toBeLessThanOrEqual(Date.now() + 1000);
    let event = await lastEvent(tenant.org.id, 'task.updated');
    expect(event.data).toEqual({ task: done, changes: ['status'] });

    const retitled = await patch(created.id, { title: 'Follow up (done)', status: 'DONE' });
    expect(retitled.completedAt).toBe(done.completedAt);
    const reopened = await patch(created.id, { status: 'PENDING' });
    expect(reopened.completedAt).toBeNull();
    const cancelled = await patch(created.id, { status: 'CANCELLED' });
    expect(cancelled).toMatchObject({ status: 'CANCELLED', completedAt: null });

    const cleared = await patch(created.id, { dueAt: null, description: null, type: 'OTHER' });
    expect(cleared).toMatchObject({
      dueAt: null,
      description: null,
      type: 'OTHER',
      title: 'Follow up (done)',
    });
    event = await lastEvent(tenant.org.id, 'task.updated');
    expect(event.data.changes).toEqual(['description', 'dueAt', 'type']);

    const doneAtCreation = await create({ title: 'Already done', status: 'DONE' });
    expect(doneAtCreation.completedAt).not.toBeNull();
  });

  it('reassigns and unlinks', async () => {
    const [first, second] = [await createAgent(app, tenant.org.id), await createAgent(app, tenant.org.id)];
    const contact = await createContact(app, tenant.org.id, { key, body: VISITOR });
    const created = await create({ title: 'Visit prep', assigneeId: first.id, contactId: contact.id });
    expect((await patch(created.id, { assigneeId: second.id })).assigneeId).toBe(second.id);
    expect(await patch(created.id, { assigneeId: null, contactId: null })).toMatchObject({
      assigneeId: null,
      contactId: null,
    });
  });

  it('deletes, records task.deleted, and a second delete is 404', async () => {
    const created = await create({ title: 'Throw away' });
    expect(expectStatus(await admin(app, 'DELETE', `${base()}/${created.id}`), 200)).toEqual({
      data: { id: created.id, deleted: true },
    });
    const event = await lastEvent(tenant.org.id, 'task.deleted');
    expect(event.data).toEqual({
      task: { id: created.id, deletedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/) },
    });
    expectError(await admin(app, 'DELETE', `${base()}/${created.id}`), 404, 'NOT_FOUND');
    expectError(
      await api(app, 'GET', `/v1/tasks/${created.id}`, { key: tenant.secret.key }),
      404,
      'NOT_FOUND',
    );
  });

  it('shows the notification task a booking leaves for its agent', async () => {
    const slug = `task-${Date.now().toString(36)}`;
    const agent = await createAgent(app, tenant.org.id, {
      bookingSlug: slug,
      booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7] },
    });
    const booked = expectStatus(
      await api(app, 'POST', `/v1/booking/${slug}`, {
        key,
        body: { firstName: 'Marta', phone: '+34611222999', date: utcDate(5), startTime: '11:00' },
      }),
      201,
    ).data.data;
    const body = expectStatus(
      await api(app, 'GET', '/v1/tasks', {
        key: tenant.secret.key,
        query: { assigneeId: agent.id, type: 'NOTIFICATION' },
      }),
      200,
    );
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({
      type: 'NOTIFICATION',
      status: 'PENDING',
      assigneeId: agent.id,
      contactId: booked.contactId,
      appointmentId: booked.appointmentId,
    });
  });

  it('lists the three event types in the catalog with examples that match', async () => {
    const body = expectStatus(
      await api(app, 'GET', '/v1/events', { key: tenant.secret.key, query: { pageSize: '100' } }),
      200,
    );
    const entries = body.data.filter((e: { type: string }) => e.type.startsWith('task.'));
    expect(entries.map((e: { type: string }) => e.type)).toEqual([
      'task.created',
      'task.deleted',
      'task.updated',
    ]);
    for (const entry of entries) expect(() => eventCatalog.check(entry.type, entry.example)).not.toThrow();
    expect(() => eventCatalog.check('task.created', { task: { id: 'task_x' } })).toThrow();
  });
});

describe('GET /v1/tasks', () => {
  let org: Tenant;
  let ids: Record<string, string>;
  let agents: { a: string; b: string };
  let contacts: { x: string; y: string };

  const list = async (query: Record<string, string> = {}, apiKey = org.secret.key) =>
    expectStatus(await api(app, 'GET', '/v1/tasks', { key: apiKey, query }), 200) as {
      data: Task[];
      meta: { total: number; page: number; pageSize: number; totalPages: number };
    };
  const names = (body: { data: Task[] }) =>
    body.data.map((t) => Object.keys(ids).find((k) => ids[k] === t.id));

  beforeAll(async () => {
    org = await createTenant(app, { secret: { rateLimitPerMinute: 100_000 } });
    const orgKey = await busyPublishableKey(app, org.org.id);
    agents = { a: (await createAgent(app, org.org.id)).id, b: (await createAgent(app, org.org.id)).id };
    contacts = {
      x: (await createContact(app, org.org.id, { key: orgKey, body: VISITOR })).id,
      y: (await createContact(app, org.org.id, { key: orgKey, body: { ...VISITOR, firstName: 'Pablo' } })).id,
    };
    ids = {};
    const make = async (name: string, body: Record<string, unknown>) =>
      (ids[name] = (await create({ title: name, ...body }, org.org.id)).id);
    // Created out of due order, so "sorted by dueAt" differs from "sorted by creation".
    await make('mar2', { dueAt: '2031-03-02T10:00:00Z', assigneeId: agents.a, type: 'CALL' });
    await make('undated', { assigneeId: agents.a });
    await make('mar1', { dueAt: '2031-03-01T10:00:00Z', assigneeId: agents.b, contactId: contacts.x });
    await make('feb', { dueAt: '2031-02-28T23:59:00Z', status: 'DONE', assigneeId: agents.a });
    await make('mar1b', { dueAt: '2031-03-01T10:00:00Z', contactId: contacts.y, type: 'CALL' });
    await make('apr', { dueAt: '2031-04-01T00:00:00Z', status: 'CANCELLED', assigneeId: agents.b });
  });

  it('lists every task soonest due first, undated last, with meta (read-only keys too)', async () => {
    const body = await list();
    expect(names(body)).toEqual(['feb', 'mar1', 'mar1b', 'mar2', 'apr', 'undated']);
    expect(body.meta).toEqual({ total: 6, page: 1, pageSize: 20, totalPages: 1 });
    expect(names(await list({}, org.readOnly.key))).toHaveLength(6);
  });

  it('filters by dueAfter (inclusive) and dueBefore (strict), as dates or date-times; undated tasks drop out', async () => {
    expect(names(await list({ dueAfter: '2031-03-01' }))).toEqual(['mar1', 'mar1b', 'mar2', 'apr']);
    expect(names(await list({ dueBefore: '2031-03-01' }))).toEqual(['feb']);
    expect(names(await list({ dueBefore: '2031-03-01T10:00:00Z' }))).toEqual(['feb']);
    expect(names(await list({ dueBefore: '2031-03-01T10:00:00.001Z' }))).toEqual(['feb', 'mar1', 'mar1b']);
    expect(names(await list({ dueAfter: '2031-03-01T11:00:00+01:00', dueBefore: '2031-04-01' }))).toEqual([
      'mar1',
      'mar1b',
      'mar2',
    ]);
  });

  it('filters by status, type, assigneeId and contactId, combined with AND', async () => {
    expect(names(await list({ status: 'PENDING' }))).toEqual(['mar1', 'mar1b', 'mar2', 'undated']);
    expect(names(await list({ status: 'DONE' }))).toEqual(['feb']);
    expect(names(await list({ status: 'CANCELLED' }))).toEqual(['apr']);
    expect(names(await list({ type: 'CALL' }))).toEqual(['mar1b', 'mar2']);
    expect(names(await list({ type: 'TODO' }))).toEqual(['feb', 'mar1', 'apr', 'undated']);
    expect(names(await list({ assigneeId: agents.a }))).toEqual(['feb', 'mar2', 'undated']);
    expect(names(await list({ assigneeId: agents.a, status: 'PENDING' }))).toEqual(['mar2', 'undated']);
    expect(names(await list({ contactId: contacts.y }))).toEqual(['mar1b']);
    expect(names(await list({ status: 'PENDING', dueBefore: '2031-03-02', type: 'CALL' }))).toEqual([
      'mar1b',
    ]);
    expect((await list({ assigneeId: 'agt_unknown' })).meta.total).toBe(0);
  });

  it('sorts by dueAt (undated last either way) or createdAt', async () => {
    expect(names(await list({ sortOrder: 'desc' }))).toEqual([
      'apr',
      'mar2',
      'mar1b',
      'mar1',
      'feb',
      'undated',
    ]);
    expect(names(await list({ sortBy: 'createdAt' }))).toEqual([
      'mar2',
      'undated',
      'mar1',
      'feb',
      'mar1b',
      'apr',
    ]);
    expect(names(await list({ sortBy: 'createdAt', sortOrder: 'desc' }))).toEqual([
      'apr',
      'mar1b',
      'feb',
      'mar1',
      'undated',
      'mar2',
    ]);
  });

  it('pages, and a page past the end is empty with the true meta', async () => {
    const second = await list({ pageSize: '4', page: '2' });
    expect(names(second)).toEqual(['apr', 'undated']);
    expect(second.meta).toEqual({ total: 6, page: 2, pageSize: 4, totalPages: 2 });
    const past = await list({ pageSize: '4', page: '5' });
    expect(past.data).toEqual([]);
    expect(past.meta).toEqual({ total: 6, page: 5, pageSize: 4, totalPages: 2 });
  });

  it('has the same filters in the back office', async () => {
    const body = expectStatus(
      await admin(app, 'GET', `${base(org.org.id)}?assigneeId=${agents.b}&sortOrder=desc`),
      200,
    );
    expect(names(body)).toEqual(['apr', 'mar1']);
  });

  it('offers the MCP read service: pending tasks by assignee and due date', async () => {
    const db = await testDatabase();
    const page = pageRequest({ pageSize: 10 });
    const mine = await operatorCallerOf(db, org.org.id);
    const theirs = await operatorCallerOf(db, other.org.id);
    expect(names(await listPendingTasks(db, mine, {}, page))).toEqual(['mar1', 'mar1b', 'mar2', 'undated']);
    expect(names(await listPendingTasks(db, mine, { assigneeId: agents.a }, page))).toEqual([
      'mar2',
      'undated',
    ]);
    const due = await listPendingTasks(db, mine, { dueBefore: '2031-03-02' }, page);
    expect(names(due)).toEqual(['mar1', 'mar1b']);
    expect(due.meta).toEqual({ total: 2, page: 1, pageSize: 10, totalPages: 1 });
    expect(
      names(
        await listPendingTasks(
          db,
          mine,
          { assigneeId: agents.a, dueBefore: new Date('2031-03-03T00:00:00Z') },
          page,
        ),
      ),
    ).toEqual(['mar2']);
    await expect(listPendingTasks(db, mine, { dueBefore: '2031-02-30' }, page)).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('dueBefore'),
    });
    expect((await listPendingTasks(db, theirs, { assigneeId: agents.a }, page)).data).toEqual([]);
  });
});

describe('admin tasks: errors', () => {
  let foreign: { agentId: string; contactId: string; appointmentId: string };

  beforeAll(async () => {
    const agentId = (await createAgent(app, other.org.id)).id;
    const contactId = (await createContact(app, other.org.id, { key: otherKey, body: VISITOR })).id;
    foreign = {
      agentId,
      contactId,
      appointmentId: (await appointmentOf(other.org.id, agentId, contactId, '2030-09-01T10:00:00Z')).id,
    };
  });

  it('names the failing field of a bad body', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'body.title'],
      [{ title: '' }, 'body.title'],
      [{ title: 'x'.repeat(201) }, 'body.title'],
      [{ title: 5 }, 'body.title'],
      [{ title: 'ok', type: 'CHORE' }, 'body.type'],
      [{ title: 'ok', status: 'OPEN' }, 'body.status'],
      [{ title: 'ok', dueAt: 'tomorrow' }, 'body.dueAt'],
      [{ title: 'ok', dueAt: '2030-05-07' }, 'body.dueAt'],
      [{ title: 'ok', description: 'x'.repeat(5001) }, 'body.description'],
      [{ title: 'ok', priority: 'HIGH' }, 'body.priority'],
      [{ title: 'ok', assigneeId: foreign.agentId }, 'body.assigneeId'],
      [{ title: 'ok', assigneeId: 'agt_nope' }, 'body.assigneeId'],
      [{ title: 'ok', contactId: foreign.contactId }, 'body.contactId'],
      [{ title: 'ok', contactId: 'ct_0000000000000000000000' }, 'body.contactId'],
      [{ title: 'ok', appointmentId: foreign.appointmentId }, 'body.appointmentId'],
      [{ title: 'ok', appointmentId: 'nope' }, 'body.appointmentId'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await admin(app, 'POST', base(), body), 400, 'VALIDATION_ERROR');
      expect(error.message, JSON.stringify(body)).toContain(field);
    }
  });

  it('names the failing field of a bad change and changes nothing', async () => {
    const created = await create({ title: 'Keep me' });
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'body'],
      [{ title: null }, 'body.title'],
      [{ status: 'OPEN' }, 'body.status'],
      [{ completedAt: '2030-01-01T00:00:00Z' }, 'body.completedAt'],
      [{ assigneeId: foreign.agentId }, 'body.assigneeId'],
      [{ contactId: foreign.contactId, title: 'Changed' }, 'body.contactId'],
      [{ appointmentId: foreign.appointmentId }, 'body.appointmentId'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(
        await admin(app, 'PATCH', `${base()}/${created.id}`, body),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.message, JSON.stringify(body)).toContain(field);
    }
    expect(expectStatus(await admin(app, 'GET', `${base()}/${created.id}`), 200).data).toEqual(created);
  });

  it('names the failing query parameter', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ dueBefore: '2031-02-30' }, 'query.dueBefore'],
      [{ dueBefore: 'soon' }, 'query.dueBefore'],
      [{ dueAfter: '2031-01-01T25:00:00Z' }, 'query.dueAfter'],
      [{ dueAfter: '2031-03-02', dueBefore: '2031-03-01' }, 'query.dueBefore'],
      [{ status: 'OPEN' }, 'query.status'],
      [{ type: 'CHORE' }, 'query.type'],
      [{ sortBy: 'title' }, 'query.sortBy'],
      [{ sortOrder: 'up' }, 'query.sortOrder'],
      [{ pageSize: '0' }, 'query.pageSize'],
      [{ unknown: '1' }, 'query.unknown'],
    ];
    for (const [query, field] of cases) {
      const error = expectError(
        await api(app, 'GET', '/v1/tasks', { key: tenant.secret.key, query }),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.message, JSON.stringify(query)).toContain(field);
    }
  });

  it('answers 404 for an unknown or malformed organization or task', async () => {
    const created = await create({ title: 'Stay' });
    for (const url of [
      `/admin/v1/organizations/org_0000000000000000000000/tasks/${created.id}`,
      `/admin/v1/organizations/nope/tasks/${created.id}`,
      `${base()}/task_0000000000000000000000`,
      `${base()}/nope`,
      `${base(other.org.id)}/${created.id}`,
    ]) {
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        expectError(
          await admin(app, method, url, method === 'PATCH' ? { title: 'x' } : undefined),
          404,
          'NOT_FOUND',
        );
      }
    }
    expectError(
      await admin(app, 'POST', '/admin/v1/organizations/nope/tasks', { title: 'x' }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await admin(app, 'GET', '/admin/v1/organizations/org_0000000000000000000000/tasks'),
      404,
      'NOT_FOUND',
    );
    expect(expectStatus(await admin(app, 'GET', `${base()}/${created.id}`), 200).data.title).toBe('Stay');
  });
});

describe('tasks: security', () => {
  it("never shows another organization's tasks to a key", async () => {
    const mine = await create({ title: 'Private' });
    expectError(await api(app, 'GET', `/v1/tasks/${mine.id}`, { key: other.secret.key }), 404, 'NOT_FOUND');
    const all = expectStatus(
      await api(app, 'GET', '/v1/tasks', { key: other.secret.key, query: { pageSize: '100' } }),
      200,
    );
    expect(all.data.map((t: Task) => t.id)).not.toContain(mine.id);
  });

  it('refuses publishable keys (403) and keys without tasks:read', async () => {
    const mine = await create({ title: 'Not for browsers' });
    const narrow = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['appointments:read'] });
    for (const url of ['/v1/tasks', `/v1/tasks/${mine.id}`]) {
      const error = expectError(
        await api(app, 'GET', url, { key: tenant.publishable.key }),
        403,
        'FORBIDDEN',
      );
      expect(error.message).toContain('portal:read');
      expect(
        expectError(await api(app, 'GET', url, { key: narrow.key }), 403, 'FORBIDDEN').message,
      ).toContain('tasks:read');
    }
  });

  it("keeps a test twin's tasks apart: test keys see them, live keys do not", async () => {
    const twin = tenant.org.testOrganizationId as string;
    const created = await create({ title: 'Test mode' }, twin);
    const testKey = await createApiKey(app, tenant.org.id, { type: 'read_only_secret', mode: 'test' });
    expectStatus(await api(app, 'GET', `/v1/tasks/${created.id}`, { key: testKey.key }), 200);
    expectError(
      await api(app, 'GET', `/v1/tasks/${created.id}`, { key: tenant.secret.key }),
      404,
      'NOT_FOUND',
    );
    expect((await lastEvent(twin, 'task.created')).livemode).toBe(false);
  });
});
