import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { createAgent, createApiKey, createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;
let other: Tenant;

const agentsPath = (orgId: string) => `/admin/v1/organizations/${orgId}/agents`;

async function events(organizationId: string, type: string) {
  const db = await testDatabase();
  return db.systemTx((tx) =>
    queryRows<{ data: Record<string, unknown>; actor: Record<string, unknown> }>(
      tx,
      sql`SELECT data, actor FROM events WHERE organization_id = ${organizationId} AND type = ${type} ORDER BY created_at, id`,
    ),
  );
}

const fieldsOf = (error: { details?: { field: string }[] }) => (error.details ?? []).map((d) => d.field);

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
  other = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

describe('admin agents: happy path', () => {
  it('creates an agent with booking settings, filling defaults and normalising phone and time zone', async () => {
    const response = await admin(app, 'POST', agentsPath(tenant.org.id), {
      firstName: ' Lucía ',
      lastName: 'Romero',
      email: 'lucia@example-realty.com',
      phone: '(415) 555-2671',
      photoUrl: 'https://images.example.com/lucia.jpg',
      bio: 'Ten years selling flats by the sea.',
      bookingSlug: 'lucia-romero',
      booking: { timezone: 'europe/madrid', autoConfirm: true, weekdays: [5, 1, 3] },
    });
    const agent = expectStatus(response, 201).data;
    expect(agent).toMatchObject({
      firstName: 'Lucía',
      lastName: 'Romero',
      fullName: 'Lucía Romero',
      email: 'lucia@example-realty.com',
      phone: '+14155552671',
      photoUrl: 'https://images.example.com/lucia.jpg',
      bio: 'Ten years selling flats by the sea.',
      active: true,
      showOnPortal: true,
      bookingSlug: 'lucia-romero',
      bookable: true,
      booking: {
        autoConfirm: true,
        timezone: 'Europe/Madrid',
        weekdays: [1, 3, 5],
        startTime: '09:00',
        endTime: '18:00',
        weeklyHours: [],
        slotMinutes: 30,
        bufferMinutes: 0,
        horizonDays: 60,
        minNoticeMinutes: 60,
      },
    });
    expect(agent.id).toMatch(/^agt_[0-9A-Za-z]{22}$/);

    const got = expectStatus(await admin(app, 'GET', `${agentsPath(tenant.org.id)}/${agent.id}`), 200).data;
    expect(got).toEqual(agent);

    const recorded = (await events(tenant.org.id, 'agent.created')).find(
      (e) => (e.data.agent as { id: string }).id === agent.id,
    );
    expect(recorded?.actor).toEqual({ kind: 'SYSTEM', userId: null });
    expect(recorded?.data.agent).toMatchObject({ id: agent.id, bookingSlug: 'lucia-romero', bookable: true });
  });

  it('creates an agent without booking: not bookable, booking null', async () => {
    const agent = await createAgent(app, tenant.org.id, { firstName: 'Pablo', bookingSlug: 'pablo' });
    expect(agent).toMatchObject({ booking: null, bookingSlug: 'pablo', bookable: false });
  });

  it('changes fields, merges booking settings member by member and turns booking off with null', async () => {
    const agent = await createAgent(app, tenant.org.id, {
      bookingSlug: 'merge-me',
      booking: { timezone: 'America/New_York', slotMinutes: 45 },
    });
    const path = `${agentsPath(tenant.org.id)}/${agent.id}`;
    const changed = expectStatus(
      await admin(app, 'PATCH', path, {
        lastName: 'Serrano',
        phone: '+34 612 34 56 78',
        booking: {
          autoConfirm: true,
          weeklyHours: [
            { weekday: 6, startTime: '16:00', endTime: '18:00' },
            { weekday: 6, startTime: '10:00', endTime: '13:00' },
          ],
        },
      }),
      200,
    ).data;
    expect(changed).toMatchObject({
      lastName: 'Serrano',
      phone: '+34612345678',
      booking: {
        timezone: 'America/New_York',
        slotMinutes: 45,
        autoConfirm: true,
        weeklyHours: [
          { weekday: 6, startTime: '10:00', endTime: '13:00' },
          { weekday: 6, startTime: '16:00', endTime: '18:00' },
        ],
      },
      bookable: true,
    });
    expect(new Date(changed.updatedAt).getTime()).toBeGreaterThanOrEqual(
      new Date(agent.updatedAt as string).getTime(),
    );

    const off = expectStatus(await admin(app, 'PATCH', path, { booking: null, active: false }), 200).data;
    expect(off).toMatchObject({ booking: null, bookable: false, active: false, bookingSlug: 'merge-me' });

    const updates = (await events(tenant.org.id, 'agent.updated')).filter(
      (e) => (e.data.agent as { id: string }).id === agent.id,
    );
    expect(updates.map((e) => e.data.changes)).toEqual([
      ['booking', 'lastName', 'phone'],
      ['active', 'booking'],
    ]);
  });

  it('lists agents by name with paging and the active and bookable filters', async () => {
    const org = (await createTenant(app)).org;
    await createAgent(app, org.id, { firstName: 'Carmen', lastName: 'Vidal' });
    await createAgent(app, org.id, {
      firstName: 'ana',
      lastName: 'Zapata',
      bookingSlug: 'ana',
      booking: { timezone: 'UTC' },
    });
    await createAgent(app, org.id, { firstName: 'Bruno', lastName: 'Ortiz', active: false });
    const list = async (query = '') =>
      expectStatus(await admin(app, 'GET', `${agentsPath(org.id)}${query}`), 200) as {
        data: { firstName: string }[];
        meta: Record<string, number>;
      };
    const all = await list();
    expect(all.data.map((a) => a.firstName)).toEqual(['ana', 'Bruno', 'Carmen']);
    expect(all.meta).toEqual({ total: 3, page: 1, pageSize: 20, totalPages: 1 });
    expect((await list('?active=false')).data.map((a) => a.firstName)).toEqual(['Bruno']);
    expect((await list('?active=true')).data.map((a) => a.firstName)).toEqual(['ana', 'Carmen']);
    expect((await list('?bookable=true')).data.map((a) => a.firstName)).toEqual(['ana']);
    expect((await list('?bookable=false')).data.map((a) => a.firstName)).toEqual(['Bruno', 'Carmen']);
    const page2 = await list('?page=2&pageSize=2');
    expect(page2.data.map((a) => a.firstName)).toEqual(['Carmen']);
    expect(page2.meta).toEqual({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
  });

  it('deletes an agent (200 with the id) and records agent.deleted', async () => {
    const agent = await createAgent(app, tenant.org.id);
    const path = `${agentsPath(tenant.org.id)}/${agent.id}`;
    expect(expectStatus(await admin(app, 'DELETE', path), 200).data).toEqual({ id: agent.id, deleted: true });
    expectError(await admin(app, 'GET', path), 404, 'NOT_FOUND');
    expectError(await admin(app, 'DELETE', path), 404, 'NOT_FOUND');
    const deleted = await events(tenant.org.id, 'agent.deleted');
    expect(deleted.some((e) => (e.data.agent as { id: string }).id === agent.id)).toBe(true);
  });

  it('refuses to delete an agent with an upcoming appointment (409 DUPLICATE), deactivation works', async () => {
    const agent = await createAgent(app, tenant.org.id, {
      bookingSlug: 'busy-agent',
      booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7], horizonDays: 30 },
    });
    const date = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    expectStatus(
      await api(app, 'POST', '/v1/booking/busy-agent', {
        key: tenant.publishable.key,
        body: { firstName: 'Marta', phone: '+34611222333', date, startTime: '10:00' },
      }),
      201,
    );
    const path = `${agentsPath(tenant.org.id)}/${agent.id}`;
    const error = expectError(await admin(app, 'DELETE', path), 409, 'DUPLICATE');
    expect(error.message).toContain('upcoming appointment');
    expectStatus(await admin(app, 'PATCH', path, { active: false }), 200);
    expectStatus(await admin(app, 'GET', path), 200);
  });

  it("works on a test twin's id like on a live organization's", async () => {
    const twinId = tenant.org.testOrganizationId as string;
    const agent = await createAgent(app, twinId, { firstName: 'Twin' });
    expectStatus(await admin(app, 'GET', `${agentsPath(twinId)}/${agent.id}`), 200);
    // The live organization does not see the twin's agent, nor the other way round.
    expectError(await admin(app, 'GET', `${agentsPath(tenant.org.id)}/${agent.id}`), 404, 'NOT_FOUND');
    const testKey = await createApiKey(app, tenant.org.id, { type: 'publishable', mode: 'test' });
    const seen = expectStatus(await api(app, 'GET', '/v1/agents', { key: testKey.key }), 200);
    expect(seen.data.map((a: { id: string }) => a.id)).toEqual([agent.id]);
    const twinEvents = await events(twinId, 'agent.created');
    expect(twinEvents).toHaveLength(1);
  });
});

describe('admin agents: errors', () => {
  const create = (body: Record<string, unknown>, orgId = tenant.org.id) =>
    admin(app, 'POST', agentsPath(orgId), body);

  it('404 for an unknown, malformed or foreign organization or agent', async () => {
    expectError(await create({ firstName: 'X' }, 'org_0000000000000000000000'), 404, 'NOT_FOUND');
    expectError(await create({ firstName: 'X' }, 'nope'), 404, 'NOT_FOUND');
    expectError(await admin(app, 'GET', agentsPath('nope')), 404, 'NOT_FOUND');
    const theirs = await createAgent(app, other.org.id);
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const body = method === 'PATCH' ? { firstName: 'Stolen' } : undefined;
      const foreign = expectError(
        await admin(app, method, `${agentsPath(tenant.org.id)}/${theirs.id}`, body),
        404,
        'NOT_FOUND',
      );
      expect(foreign.message).toBe(`Agent ${theirs.id} not found`);
      expectError(await admin(app, method, `${agentsPath(tenant.org.id)}/agt_nope`, body), 404, 'NOT_FOUND');
    }
    expect(
      expectStatus(await admin(app, 'GET', `${agentsPath(other.org.id)}/${theirs.id}`), 200).data.firstName,
    ).toBe('Lucía');
  });

  it('400 naming each invalid field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'body.firstName'],
      [{ firstName: '' }, 'body.firstName'],
      [{ firstName: 'A', email: 'not-an-email' }, 'body.email'],
      [{ firstName: 'A', phone: '12345678' }, 'body.phone'],
      [{ firstName: 'A', photoUrl: 'ftp://x.example.com/a.jpg' }, 'body.photoUrl'],
      [{ firstName: 'A', bookingSlug: 'Not A Slug' }, 'body.bookingSlug'],
      [{ firstName: 'A', bookingSlug: 'double--hyphen' }, 'body.bookingSlug'],
      [{ firstName: 'A', booking: { maxPerDay: 0 } }, 'body.booking.maxPerDay'],
      [{ firstName: 'A', booking: { timezone: 'Mars/Olympus' } }, 'body.booking.timezone'],
      [{ firstName: 'A', booking: { timezone: '+02:00' } }, 'body.booking.timezone'],
      [
        { firstName: 'A', booking: { timezone: 'UTC', startTime: '18:00', endTime: '09:00' } },
        'body.booking.endTime',
      ],
      [{ firstName: 'A', booking: { timezone: 'UTC', startTime: '9:00' } }, 'body.booking.startTime'],
      [{ firstName: 'A', booking: { timezone: 'UTC', endTime: '24:01' } }, 'body.booking.endTime'],
      [{ firstName: 'A', booking: { timezone: 'UTC', startTime: '24:00' } }, 'body.booking.startTime'],
      [{ firstName: 'A', booking: { timezone: 'UTC', slotMinutes: 4 } }, 'body.booking.slotMinutes'],
      [{ firstName: 'A', booking: { timezone: 'UTC', slotMinutes: 481 } }, 'body.booking.slotMinutes'],
      [{ firstName: 'A', booking: { timezone: 'UTC', weekdays: [0] } }, 'body.booking.weekdays[0]'],
      [{ firstName: 'A', booking: { timezone: 'UTC', weekdays: [8] } }, 'body.booking.weekdays[0]'],
      [{ firstName: 'A', booking: { timezone: 'UTC', horizonDays: 0 } }, 'body.booking.horizonDays'],
      [{ firstName: 'A', booking: { timezone: 'UTC', bufferMinutes: -5 } }, 'body.booking.bufferMinutes'],
      [
        { firstName: 'A', booking: { timezone: 'UTC', minNoticeMinutes: 1.5 } },
        'body.booking.minNoticeMinutes',
      ],
      [
        {
          firstName: 'A',
          booking: { timezone: 'UTC', weeklyHours: [{ weekday: 1, startTime: '12:00', endTime: '10:00' }] },
        },
        'body.booking.weeklyHours[0].endTime',
      ],
      [
        {
          firstName: 'A',
          booking: {
            timezone: 'UTC',
            weeklyHours: [
              { weekday: 2, startTime: '09:00', endTime: '12:00' },
              { weekday: 2, startTime: '11:00', endTime: '14:00' },
            ],
          },
        },
        'body.booking.weeklyHours[1]',
      ],
      [{ firstName: 'A', booking: { timezone: 'UTC', color: 'red' } }, 'body.booking.color'],
      [{ firstName: 'A', nickname: 'Lu' }, 'body.nickname'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await create(body), 400, 'VALIDATION_ERROR');
      expect(fieldsOf(error), `${JSON.stringify(body)}: ${error.message}`).toContain(field);
      expect(error.message).toContain(field);
    }
  });

  it("400 on a PATCH without fields; booking turned on without a time zone takes the organization's", async () => {
    const agent = await createAgent(app, tenant.org.id);
    const path = `${agentsPath(tenant.org.id)}/${agent.id}`;
    expectError(await admin(app, 'PATCH', path, {}), 400, 'VALIDATION_ERROR');
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${tenant.org.id}/calendar`, {
        timezone: 'Europe/Madrid',
      }),
      200,
    );
    const on = expectStatus(await admin(app, 'PATCH', path, { booking: { autoConfirm: true } }), 200)
      .data as {
      booking: { timezone: string; maxPerDay: number | null };
    };
    expect(on.booking).toMatchObject({ timezone: 'Europe/Madrid', maxPerDay: null });
  });

  it('409 DUPLICATE for a booking slug taken in the organization, on create and on change', async () => {
    await createAgent(app, tenant.org.id, { bookingSlug: 'taken-slug' });
    const error = expectError(await create({ firstName: 'B', bookingSlug: 'taken-slug' }), 409, 'DUPLICATE');
    expect(error.message).toContain('taken-slug');
    const second = await createAgent(app, tenant.org.id, { bookingSlug: 'free-slug' });
    expectError(
      await admin(app, 'PATCH', `${agentsPath(tenant.org.id)}/${second.id}`, { bookingSlug: 'taken-slug' }),
      409,
      'DUPLICATE',
    );
    // Keeping one's own slug is no clash; another organization may use the same slug.
    expectStatus(
      await admin(app, 'PATCH', `${agentsPath(tenant.org.id)}/${second.id}`, { bookingSlug: 'free-slug' }),
      200,
    );
    await createAgent(app, other.org.id, { bookingSlug: 'taken-slug' });
  });

  it('401 without the admin token', async () => {
    const response = await app.inject({ method: 'GET', url: agentsPath(tenant.org.id) });
    expectError(response, 401, 'UNAUTHORIZED');
  });
});

describe('GET /v1/agents (portal)', () => {
  let org: Tenant;
  beforeAll(async () => {
    org = await createTenant(app);
    await createAgent(app, org.org.id, {
      firstName: 'Elena',
      lastName: 'Ruiz',
      bookingSlug: 'elena',
      booking: { timezone: 'Europe/Madrid' },
      bio: 'Villas and fincas.',
    });
    await createAgent(app, org.org.id, { firstName: 'David', lastName: 'Mora', bookingSlug: 'david' });
    await createAgent(app, org.org.id, { firstName: 'Hidden', showOnPortal: false });
    await createAgent(app, org.org.id, { firstName: 'Gone', active: false });
    await createAgent(app, other.org.id, { firstName: 'Stranger' });
  });

  it('lists active agents shown on the portal, by name, with public fields only', async () => {
    const body = expectStatus(await api(app, 'GET', '/v1/agents', { key: org.publishable.key }), 200);
    expect(body.data.map((a: { fullName: string }) => a.fullName)).toEqual(['David Mora', 'Elena Ruiz']);
    expect(body.meta).toEqual({ total: 2, page: 1, pageSize: 20, totalPages: 1 });
    const [david, elena] = body.data;
    expect(Object.keys(elena).sort()).toEqual(
      ['bio', 'bookingSlug', 'email', 'firstName', 'fullName', 'id', 'lastName', 'phone', 'photoUrl'].sort(),
    );
    expect(elena).toMatchObject({ bookingSlug: 'elena', bio: 'Villas and fincas.', phone: '+34612345678' });
    // A slug without booking settings is no booking page yet.
    expect(david.bookingSlug).toBeNull();
  });

  it('pages, and a secret key with portal:read reads it too', async () => {
    const body = expectStatus(
      await api(app, 'GET', '/v1/agents', { key: org.secret.key, query: { page: '2', pageSize: '1' } }),
      200,
    );
    expect(body.data.map((a: { firstName: string }) => a.firstName)).toEqual(['Elena']);
    expect(body.meta).toEqual({ total: 2, page: 2, pageSize: 1, totalPages: 2 });
    expectError(
      await api(app, 'GET', '/v1/agents', { key: org.publishable.key, query: { pageSize: '101' } }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it("never shows another agency's agents", async () => {
    const body = expectStatus(await api(app, 'GET', '/v1/agents', { key: other.publishable.key }), 200);
    const names = body.data.map((a: { firstName: string }) => a.firstName);
    expect(names).toContain('Stranger');
    expect(names).not.toContain('Elena');
    expect(names).not.toContain('David');
  });
});
