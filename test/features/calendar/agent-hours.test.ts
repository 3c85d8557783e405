/**
 * An agent's booking page and working hours through v1 (issue 26 item 2): `GET/PATCH
 * /v1/agents/{id}/booking` with appointments:read / appointments:write. Several ranges a day, the
 * organization's time zone by default, overlapping ranges refused, booking turned off; the change is
 * what the booking page offers at once, and `agent.updated` names the key's actor. Keys and tenants.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createApiKey, createTenant, FAST, type Tenant } from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { eventsOf } from '../contacts/support.ts';
import { addDays, today } from './support.ts';

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

const path = (id: string) => `/v1/agents/${id}/booking`;

describe('GET/PATCH /v1/agents/{id}/booking', () => {
  it('sets hours with two ranges a day in the organization time zone; the booking page offers exactly them', async () => {
    expectStatus(
      await api(app, 'PATCH', '/v1/calendar/settings', {
        key: tenant.secret.key,
        body: { timezone: 'America/Bogota' },
      }),
      200,
    );
    const agent = await createAgent(app, tenant.org.id, { firstName: 'Sofía' });
    expect(expectStatus(await api(app, 'GET', path(agent.id), { key: tenant.secret.key }), 200).data).toEqual(
      {
        agentId: agent.id,
        bookingSlug: null,
        booking: null,
        bookable: false,
      },
    );
    const changed = expectStatus(
      await api(app, 'PATCH', path(agent.id), {
        key: tenant.secret.key,
        body: {
          bookingSlug: `sofia-${Date.now().toString(36)}`,
          booking: {
            weekdays: [],
            weeklyHours: [1, 2, 3, 4, 5, 6, 7].flatMap((weekday) => [
              { weekday, startTime: '09:00', endTime: '11:00' },
              { weekday, startTime: '15:00', endTime: '17:00' },
            ]),
            slotMinutes: 60,
            minNoticeMinutes: 0,
          },
        },
      }),
      200,
    ).data;
    expect(changed).toMatchObject({
      bookable: true,
      booking: { timezone: 'America/Bogota', maxPerDay: null },
    });
    const day = addDays(today(), 3);
    const availability = expectStatus(
      await api(app, 'GET', `/v1/booking/${changed.bookingSlug}/availability`, {
        key: tenant.publishable.key,
        query: { year: day.slice(0, 4), month: String(Number(day.slice(5, 7)) - 1) },
      }),
      200,
    ).data.data;
    expect(availability.timezone).toBe('America/Bogota');
    expect(availability.availableDates.find((d: { date: string }) => d.date === day)?.slots).toEqual([
      '09:00',
      '10:00',
      '15:00',
      '16:00',
    ]);
    const [event] = (await eventsOf(tenant.org.id, ['agent.updated'])).filter(
      (e) => (e.data as { agent: { id: string } }).agent.id === agent.id,
    );
    expect(event?.actor).toEqual({ kind: 'API', userId: null });
    expect((event?.data as { changes: string[] }).changes).toEqual(['booking', 'bookingSlug']);
  });

  it('refuses overlapping ranges (400 naming the entry) and turns booking off with null', async () => {
    const agent = await createAgent(app, tenant.org.id, {
      bookingSlug: `off-${Date.now().toString(36)}`,
      booking: { timezone: 'UTC' },
    });
    const error = expectError(
      await api(app, 'PATCH', path(agent.id), {
        key: tenant.secret.key,
        body: {
          booking: {
            weeklyHours: [
              { weekday: 2, startTime: '09:00', endTime: '12:00' },
              { weekday: 2, startTime: '11:30', endTime: '14:00' },
            ],
          },
        },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details?.[0]?.field).toBe('body.booking.weeklyHours[1]');
    expectError(
      await api(app, 'PATCH', path(agent.id), { key: tenant.secret.key, body: {} }),
      400,
      'VALIDATION_ERROR',
    );
    const off = expectStatus(
      await api(app, 'PATCH', path(agent.id), { key: tenant.secret.key, body: { booking: null } }),
      200,
    ).data;
    expect(off).toMatchObject({ booking: null, bookable: false });
  });

  it("another organization's key gets 404; a read-only key reads but cannot change; a publishable key neither", async () => {
    const agent = await createAgent(app, tenant.org.id, { firstName: 'Private' });
    expectError(await api(app, 'GET', path(agent.id), { key: other.secret.key }), 404, 'NOT_FOUND');
    expectError(
      await api(app, 'PATCH', path(agent.id), {
        key: other.secret.key,
        body: { booking: { slotMinutes: 45 } },
      }),
      404,
      'NOT_FOUND',
    );
    expectError(await api(app, 'GET', path('agt_unknown'), { key: tenant.secret.key }), 404, 'NOT_FOUND');
    const readOnly = (await createApiKey(app, tenant.org.id, { type: 'read_only_secret' })).key;
    expectStatus(await api(app, 'GET', path(agent.id), { key: readOnly }), 200);
    expectError(
      await api(app, 'PATCH', path(agent.id), { key: readOnly, body: { booking: { slotMinutes: 45 } } }),
      403,
      'FORBIDDEN',
    );
    expectError(await api(app, 'GET', path(agent.id), { key: tenant.publishable.key }), 403, 'FORBIDDEN');
  });
});
