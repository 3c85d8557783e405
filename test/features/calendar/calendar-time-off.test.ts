/**
 * Agents' time off through v1 and the admin API (issue 26): recorded with normalised instants,
 * listed by agent, window and page, checked (end after start, at most 366 days, the organization's
 * own agent), kept per organization; and which keys may read and write the calendar routes. What
 * booking makes of time off is booking-rules.test.ts.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { createAgent, createApiKey, createTenant, FAST, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { addDays, DAY, today } from './support.ts';

let app: FastifyInstance;
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: FAST });
  other = await createTenant(app, { secret: FAST });
});
afterAll(async () => {
  await app.close();
});

const fresh = () => createTenant(app, { secret: FAST });
const iso = (ms: number) => new Date(ms).toISOString();

function call(key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) {
  return api(app, method, url, { key, body });
}

/** Asserts a 400 VALIDATION_ERROR whose message names `field`. */
function expect400(response: Parameters<typeof expectError>[0], field: string, label = field) {
  const error = expectError(response, 400, 'VALIDATION_ERROR');
  expect(error.message, label).toContain(field);
  return error;
}

describe('time off', () => {
  it('records time off (instants normalised, reason trimmed) and lists it by agent and window, paged', async () => {
    const org = await fresh();
    const [ana, ben] = [await createAgent(app, org.org.id), await createAgent(app, org.org.id)];
    const midnight = Date.parse(`${addDays(today(), 5)}T00:00:00Z`);
    const at = (days: number, hours: number) => midnight + days * DAY + hours * 3_600_000;
    const create = async (body: Record<string, unknown>) =>
      expectStatus(await call(org.secret.key, 'POST', '/v1/calendar/time-off', body), 201).data;

    const day1 = addDays(today(), 6);
    const dentist = await create({
      agentId: ana.id,
      startsAt: `${day1}T11:00:00+02:00`,
      endsAt: `${day1}T13:30:00+02:00`,
      reason: '  Dentist ',
    });
    expect(dentist).toEqual({
      id: expect.stringMatching(/^off_/),
      agentId: ana.id,
      startsAt: `${day1}T09:00:00.000Z`,
      endsAt: `${day1}T11:30:00.000Z`,
      reason: 'Dentist',
      createdAt: expect.any(String),
    });
    const course = await create({
      agentId: ben.id,
      startsAt: iso(at(2, 8)),
      endsAt: iso(at(2, 10)),
      reason: '',
    });
    expect(course.reason).toBeNull();
    const leave = await create({ agentId: ana.id, startsAt: iso(at(3, 8)), endsAt: iso(at(5, 0)) });
    expect(leave.reason).toBeNull();
    const past = await create({
      agentId: ana.id,
      startsAt: iso(Date.now() - 3 * DAY),
      endsAt: iso(Date.now() - 2 * DAY),
    });

    const list = async (query: Record<string, string> = {}) => {
      const body = expectStatus(
        await api(app, 'GET', '/v1/calendar/time-off', { key: org.secret.key, query }),
        200,
      );
      return { ids: (body.data as { id: string }[]).map((t) => t.id), meta: body.meta };
    };
    // Default: what ends after now, earliest first.
    expect(await list()).toEqual({
      ids: [dentist.id, course.id, leave.id],
      meta: { total: 3, page: 1, pageSize: 20, totalPages: 1 },
    });
    expect((await list({ agentId: ana.id })).ids).toEqual([dentist.id, leave.id]);
    expect((await list({ agentId: ben.id })).ids).toEqual([course.id]);
    expect((await list({ agentId: 'agt_0000000000000000000000' })).ids).toEqual([]);
    expect((await list({ from: iso(Date.now() - 4 * DAY) })).ids).toEqual([
      past.id,
      dentist.id,
      course.id,
      leave.id,
    ]);
    // Ending after from and starting before to: the edges do not count.
    expect((await list({ from: iso(at(2, 0)), to: iso(at(3, 8)) })).ids).toEqual([course.id]);
    expect((await list({ from: dentist.endsAt, to: iso(at(3, 9)) })).ids).toEqual([course.id, leave.id]);
    // Paging.
    expect(await list({ pageSize: '2' })).toEqual({
      ids: [dentist.id, course.id],
      meta: { total: 3, page: 1, pageSize: 2, totalPages: 2 },
    });
    expect(await list({ pageSize: '2', page: '2' })).toEqual({
      ids: [leave.id],
      meta: { total: 3, page: 2, pageSize: 2, totalPages: 2 },
    });
    expect400(
      await api(app, 'GET', '/v1/calendar/time-off', { key: org.secret.key, query: { pageSize: '101' } }),
      'query.pageSize',
    );
    expect400(
      await api(app, 'GET', '/v1/calendar/time-off', { key: org.secret.key, query: { from: 'soon' } }),
      'query.from',
    );
    // The admin API lists the same.
    const viaAdmin = expectStatus(
      await admin(app, 'GET', `/admin/v1/organizations/${org.org.id}/time-off?agentId=${ana.id}`),
      200,
    );
    expect(viaAdmin.data.map((t: { id: string }) => t.id)).toEqual([dentist.id, leave.id]);
  });

  it('400 naming the field for an end not after the start, more than 366 days, or an agent not the organization’s', async () => {
    const org = await fresh();
    const agent = await createAgent(app, org.org.id);
    const theirs = await createAgent(app, other.org.id);
    const start = Date.parse(`${addDays(today(), 3)}T09:00:00Z`);
    const body = (overrides: Record<string, unknown>) => ({
      agentId: agent.id,
      startsAt: iso(start),
      endsAt: iso(start + 3_600_000),
      ...overrides,
    });
    const cases: [Record<string, unknown>, string][] = [
      [body({ endsAt: iso(start) }), 'body.endsAt'],
      [body({ endsAt: iso(start - 60_000) }), 'body.endsAt'],
      [body({ endsAt: iso(start + 366 * DAY + 60_000) }), 'body.endsAt'],
      [body({ startsAt: 'tomorrow' }), 'body.startsAt'],
      [body({ endsAt: `${addDays(today(), 3)} 10:00` }), 'body.endsAt'],
      [body({ agentId: theirs.id }), 'body.agentId'],
      [body({ agentId: 'agt_0000000000000000000000' }), 'body.agentId'],
      [body({ agentId: 'someone' }), 'body.agentId'],
      [body({ agentId: undefined }), 'body.agentId'],
      [body({ reason: 'x'.repeat(501) }), 'body.reason'],
    ];
    for (const [payload, field] of cases) {
      expect400(
        await call(org.secret.key, 'POST', '/v1/calendar/time-off', payload),
        field,
        JSON.stringify(payload),
      );
    }
    expect400(
      await admin(
        app,
        'POST',
        `/admin/v1/organizations/${org.org.id}/time-off`,
        body({ agentId: theirs.id }),
      ),
      'body.agentId',
    );
    const none = expectStatus(
      await api(app, 'GET', '/v1/calendar/time-off', { key: org.secret.key, query: { from: iso(0) } }),
      200,
    );
    expect(none.meta.total).toBe(0);
    // Exactly 366 days is allowed.
    expectStatus(
      await call(org.secret.key, 'POST', '/v1/calendar/time-off', body({ endsAt: iso(start + 366 * DAY) })),
      201,
    );
  });

  it("deletes time off; another organization's key and id get 404 and leave it alone", async () => {
    const agent = await createAgent(app, tenant.org.id);
    const start = Date.parse(`${addDays(today(), 4)}T09:00:00Z`);
    const created = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${tenant.org.id}/time-off`, {
        agentId: agent.id,
        startsAt: iso(start),
        endsAt: iso(start + 7_200_000),
        reason: 'Training',
      }),
      201,
    ).data;
    const mine = async () =>
      expectStatus(
        await api(app, 'GET', '/v1/calendar/time-off', {
          key: tenant.secret.key,
          query: { agentId: agent.id },
        }),
        200,
      ).data.map((t: { id: string }) => t.id);
    expect(await mine()).toEqual([created.id]);
    const theirs = expectStatus(
      await api(app, 'GET', '/v1/calendar/time-off', { key: other.secret.key, query: { agentId: agent.id } }),
      200,
    );
    expect(theirs).toMatchObject({ data: [], meta: { total: 0 } });
    expectError(
      await call(other.secret.key, 'DELETE', `/v1/calendar/time-off/${created.id}`),
      404,
      'NOT_FOUND',
    );
    expectError(
      await admin(app, 'DELETE', `/admin/v1/organizations/${other.org.id}/time-off/${created.id}`),
      404,
      'NOT_FOUND',
    );
    expect(await mine()).toEqual([created.id]);
    expect(
      expectStatus(await call(tenant.secret.key, 'DELETE', `/v1/calendar/time-off/${created.id}`), 200),
    ).toEqual({
      data: { id: created.id, deleted: true },
    });
    expect(await mine()).toEqual([]);
    for (const gone of [created.id, 'nope']) {
      expectError(await call(tenant.secret.key, 'DELETE', `/v1/calendar/time-off/${gone}`), 404, 'NOT_FOUND');
    }
    // An admin path id that is no organization (malformed or unknown): 404 on every route.
    for (const orgId of ['org_nope', 'org_0000000000000000000000']) {
      const url = `/admin/v1/organizations/${orgId}/time-off`;
      const body = { agentId: agent.id, startsAt: iso(start), endsAt: iso(start + 60_000) };
      for (const response of [
        await admin(app, 'GET', url),
        await admin(app, 'POST', url, body),
        await admin(app, 'DELETE', `${url}/${created.id}`),
      ]) {
        expect(expectError(response, 404, 'NOT_FOUND').message, orgId).toMatch(/^(Organization|Time off) /);
      }
    }
  });
});

describe('who may read and write the calendar', () => {
  it('secret and read-only keys read; writes need a secret key with appointments:write at level 3; publishable keys get 403', async () => {
    const org = await fresh();
    const agent = await createAgent(app, org.org.id);
    const day = addDays(today(), 12);
    const make = (body: Record<string, unknown>) =>
      createApiKey(app, org.org.id, { type: 'secret', ...body });
    const noRead = await make({ scopes: SCOPES.filter((s) => s !== 'appointments:read'), accessLevel: 3 });
    const noWrite = await make({ scopes: SCOPES.filter((s) => s !== 'appointments:write'), accessLevel: 3 });
    const level2 = await make({ scopes: [...SCOPES], accessLevel: 2 });
    const reads = ['/v1/calendar/settings', '/v1/calendar/closures', '/v1/calendar/time-off'];
    const writes: ['POST' | 'PATCH' | 'DELETE', string, unknown][] = [
      ['PATCH', '/v1/calendar/settings', { timezone: 'Asia/Tokyo' }],
      ['POST', '/v1/calendar/closures', { startDate: day, name: 'Refused' }],
      ['DELETE', '/v1/calendar/closures/clo_0000000000000000000000', undefined],
      [
        'POST',
        '/v1/calendar/time-off',
        { agentId: agent.id, startsAt: `${day}T09:00:00Z`, endsAt: `${day}T10:00:00Z` },
      ],
      ['DELETE', '/v1/calendar/time-off/off_0000000000000000000000', undefined],
    ];
    for (const url of reads) {
      for (const key of [org.secret.key, org.readOnly.key, noWrite.key, level2.key]) {
        expectStatus(await call(key, 'GET', url), 200);
      }
      for (const key of [org.publishable.key, noRead.key])
        expectError(await call(key, 'GET', url), 403, 'FORBIDDEN');
      expectError(await call('sk_nope', 'GET', url), 401, 'UNAUTHORIZED');
    }
    for (const [method, url, body] of writes) {
      for (const key of [org.readOnly.key, org.publishable.key, noWrite.key, level2.key]) {
        expectError(await call(key, method, url, body), 403, 'FORBIDDEN');
      }
    }
    // None of the refused writes landed; the full key's do.
    const read = async (url: string) => expectStatus(await call(org.secret.key, 'GET', url), 200).data;
    expect((await read('/v1/calendar/settings')).timezone).toBe('UTC');
    expect(await read('/v1/calendar/closures')).toEqual([]);
    expect(await read('/v1/calendar/time-off')).toEqual([]);
    for (const [method, url, body] of writes.filter(([method]) => method === 'POST')) {
      expectStatus(await call(org.secret.key, method, url, body), 201);
    }
    expect(await read('/v1/calendar/closures')).toHaveLength(1);
    expect(await read('/v1/calendar/time-off')).toHaveLength(1);
  });
});
