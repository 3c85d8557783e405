/**
 * The agency's calendar through v1 and the admin API (issue 26): its settings (time zone, holiday
 * place, reminder offsets), which a test twin mirrors and cannot change, and its closures, listed
 * with the public holidays of its region, checked and kept per organization. Time off and who may
 * call these routes: calendar-time-off.test.ts; what booking makes of them: booking-rules.test.ts.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { createApiKey, createTenant, FAST, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { addDays, today } from './support.ts';

const DEFAULTS = {
  timezone: 'UTC',
  holidays: null,
  reminderOffsetsMinutes: [1440, 120],
  reminderTemplateId: null,
  reminderChannels: ['MESSAGING'],
};

let app: FastifyInstance;
let tenant: Tenant;
let other: Tenant;

interface Closure {
  id: string | null;
  source: 'AGENCY' | 'PUBLIC_HOLIDAY';
  startDate: string;
  endDate: string;
  name: string;
  createdAt: string | null;
}

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: FAST });
  other = await createTenant(app, { secret: FAST });
});
afterAll(async () => {
  await app.close();
});

const fresh = () => createTenant(app, { secret: FAST });
const nextYear = () => new Date().getUTCFullYear() + 1;

function call(key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) {
  return api(app, method, url, { key, body });
}

async function closures(key: string, query: Record<string, string> = {}): Promise<Closure[]> {
  const body = expectStatus(await api(app, 'GET', '/v1/calendar/closures', { key, query }), 200);
  expect(Object.keys(body)).toEqual(['data']);
  return body.data;
}

async function createClosure(key: string, body: Record<string, unknown>): Promise<Closure> {
  return expectStatus(await call(key, 'POST', '/v1/calendar/closures', body), 201).data;
}

/** Asserts a 400 VALIDATION_ERROR whose message names `field`. */
function expect400(response: Parameters<typeof expectError>[0], field: string, label = field) {
  const error = expectError(response, 400, 'VALIDATION_ERROR');
  expect(error.message, label).toContain(field);
  return error;
}

describe('calendar settings', () => {
  it('start in UTC with no holidays and reminders 24 h and 2 h before, through v1 and the admin API', async () => {
    const org = await fresh();
    for (const key of [org.secret.key, org.readOnly.key]) {
      expect(expectStatus(await call(key, 'GET', '/v1/calendar/settings'), 200)).toEqual({ data: DEFAULTS });
    }
    const viaAdmin = await admin(app, 'GET', `/admin/v1/organizations/${org.org.id}/calendar`);
    expect(expectStatus(viaAdmin, 200)).toEqual({ data: DEFAULTS });
    for (const id of ['org_nope', 'org_0000000000000000000000']) {
      expectError(await admin(app, 'GET', `/admin/v1/organizations/${id}/calendar`), 404, 'NOT_FOUND');
      expectError(
        await admin(app, 'PATCH', `/admin/v1/organizations/${id}/calendar`, { timezone: 'UTC' }),
        404,
        'NOT_FOUND',
      );
    }
  });

  it('PATCH changes what is sent: canonical zone, reminders longest first; the test twin follows', async () => {
    const org = await fresh();
    const twinId = org.org.testOrganizationId as string;
    expect(twinId).toMatch(/^org_/);
    const patch = async (body: unknown) =>
      expectStatus(await call(org.secret.key, 'PATCH', '/v1/calendar/settings', body), 200).data;

    expect(await patch({ timezone: 'europe/madrid' })).toEqual({ ...DEFAULTS, timezone: 'Europe/Madrid' });
    const madrid = {
      timezone: 'Europe/Madrid',
      holidays: { country: 'ES', region: 'MD' },
      reminderOffsetsMinutes: [2880, 60, 30],
      reminderTemplateId: null,
      reminderChannels: ['MESSAGING'],
    };
    expect(
      await patch({ holidays: { country: 'ES', region: 'MD' }, reminderOffsetsMinutes: [30, 2880, 60] }),
    ).toEqual(madrid);
    expect(expectStatus(await call(org.secret.key, 'GET', '/v1/calendar/settings'), 200).data).toEqual(
      madrid,
    );

    // The twin shows the live organization's settings, to the admin API and to a test key.
    const twin = async () =>
      expectStatus(await admin(app, 'GET', `/admin/v1/organizations/${twinId}/calendar`), 200).data;
    expect(await twin()).toEqual(madrid);
    const testKey = await createApiKey(app, org.org.id, {
      type: 'secret',
      mode: 'test',
      scopes: [...SCOPES],
      accessLevel: 3,
    });
    expect(testKey.organizationId).toBe(twinId);
    expect(expectStatus(await call(testKey.key, 'GET', '/v1/calendar/settings'), 200).data).toEqual(madrid);

    // Reminder channels are kept in one order, whatever the order sent (issue 41).
    expect(await patch({ reminderChannels: ['EMAIL', 'MESSAGING'] })).toMatchObject({
      reminderChannels: ['MESSAGING', 'EMAIL'],
    });
    expect(await patch({ reminderChannels: ['MESSAGING'] })).toEqual(madrid);
    // A country without a region: national holidays only. null: none. Empty reminders: none.
    expect(await patch({ holidays: { country: 'FR' } })).toMatchObject({
      holidays: { country: 'FR', region: null },
    });
    const none = { ...DEFAULTS, timezone: 'Europe/Madrid', reminderOffsetsMinutes: [] };
    expect(await patch({ holidays: null, reminderOffsetsMinutes: [] })).toEqual(none);
    // The admin API changes the live organization, and the twin follows it too.
    const viaAdmin = await admin(app, 'PATCH', `/admin/v1/organizations/${org.org.id}/calendar`, {
      timezone: 'America/Bogota',
    });
    expect(expectStatus(viaAdmin, 200).data.timezone).toBe('America/Bogota');
    expect(await twin()).toEqual({ ...none, timezone: 'America/Bogota' });
    // Another organization kept its defaults.
    expect(expectStatus(await call(other.secret.key, 'GET', '/v1/calendar/settings'), 200).data).toEqual(
      DEFAULTS,
    );
  });

  it('400 naming the field for an unknown zone, holiday country or region, or a bad reminder', async () => {
    const org = await fresh();
    const cases: [unknown, string][] = [
      [{ timezone: 'Mars/Olympus_Mons' }, 'body.timezone'],
      [{ timezone: 'Europe/Madird' }, 'body.timezone'],
      [{ holidays: { country: 'XX' } }, 'body.holidays.country'],
      [{ holidays: { country: 'es' } }, 'body.holidays.country'],
      [{ holidays: { country: 'ES', region: 'ZZ' } }, 'body.holidays.region'],
      [{ holidays: { country: 'ES', region: 'Madrid' } }, 'body.holidays.region'],
      [{ reminderOffsetsMinutes: [1] }, 'body.reminderOffsetsMinutes'],
      [{ reminderOffsetsMinutes: [60, 60] }, 'body.reminderOffsetsMinutes'],
      [{ reminderChannels: ['SMS'] }, 'body.reminderChannels'],
      [{ reminderChannels: ['EMAIL', 'EMAIL'] }, 'body.reminderChannels'],
      [{ colour: 'blue' }, 'body'],
      [{}, 'body'],
    ];
    for (const [body, field] of cases) {
      expect400(
        await call(org.secret.key, 'PATCH', '/v1/calendar/settings', body),
        field,
        JSON.stringify(body),
      );
    }
    const region = expect400(
      await call(org.secret.key, 'PATCH', '/v1/calendar/settings', {
        holidays: { country: 'ES', region: 'ZZ' },
      }),
      'body.holidays.region',
    );
    expect(region.details).toEqual([
      { field: 'body.holidays.region', message: expect.stringContaining('MD') },
    ]);
    // Nothing changed.
    expect(expectStatus(await call(org.secret.key, 'GET', '/v1/calendar/settings'), 200).data).toEqual(
      DEFAULTS,
    );
  });

  it("refuses a test key's change (400 header.x-api-key) and the admin API's through the twin id (400 path.orgId)", async () => {
    const org = await fresh();
    const testKey = await createApiKey(app, org.org.id, {
      type: 'secret',
      mode: 'test',
      scopes: [...SCOPES],
      accessLevel: 3,
    });
    const byKey = expect400(
      await call(testKey.key, 'PATCH', '/v1/calendar/settings', { timezone: 'Asia/Tokyo' }),
      'header.x-api-key',
    );
    expect(byKey.details?.map((d) => d.field)).toEqual(['header.x-api-key']);
    const twinId = org.org.testOrganizationId as string;
    const byAdmin = expect400(
      await admin(app, 'PATCH', `/admin/v1/organizations/${twinId}/calendar`, { timezone: 'Asia/Tokyo' }),
      'path.orgId',
    );
    expect(byAdmin.message).toContain(org.org.id);
    for (const id of [org.org.id, twinId]) {
      const settings = await admin(app, 'GET', `/admin/v1/organizations/${id}/calendar`);
      expect(expectStatus(settings, 200).data).toEqual(DEFAULTS);
    }
  });
});

describe('closures', () => {
  it('creates agency closures and lists them among the public holidays of the region, by first day', async () => {
    const org = await fresh();
    const year = nextYear();
    const window = { from: `${year}-01-01`, to: `${year}-12-31` };
    const winter = await createClosure(org.secret.key, {
      startDate: `${year}-01-02`,
      endDate: `${year}-01-05`,
      name: '  Winter break ',
    });
    expect(winter).toEqual({
      id: expect.stringMatching(/^clo_/),
      source: 'AGENCY',
      startDate: `${year}-01-02`,
      endDate: `${year}-01-05`,
      name: 'Winter break',
      createdAt: expect.any(String),
    });
    expect(Math.abs(Date.parse(winter.createdAt as string) - Date.now())).toBeLessThan(60_000);
    const summer = await createClosure(org.secret.key, { startDate: `${year}-08-10`, name: 'Summer' });
    expect(summer.endDate).toBe(`${year}-08-10`);

    // No holiday settings: only the agency's own.
    expect((await closures(org.secret.key, window)).map((c) => c.id)).toEqual([winter.id, summer.id]);

    const setHolidays = async (region: string) =>
      expectStatus(
        await call(org.secret.key, 'PATCH', '/v1/calendar/settings', { holidays: { country: 'ES', region } }),
        200,
      );
    await setHolidays('MD');
    const madrid = await closures(org.secret.key, window);
    expect(madrid[0]).toEqual({
      id: null,
      source: 'PUBLIC_HOLIDAY',
      startDate: `${year}-01-01`,
      endDate: `${year}-01-01`,
      name: "New Year's Day",
      createdAt: null,
    });
    const starts = madrid.map((c) => c.startDate);
    expect(starts).toEqual([...starts].sort());
    const epiphany = madrid.findIndex((c) => c.startDate === `${year}-01-06`);
    expect(madrid[epiphany]?.source).toBe('PUBLIC_HOLIDAY');
    expect(madrid.findIndex((c) => c.id === winter.id)).toBeLessThan(epiphany);
    expect(madrid.filter((c) => c.source === 'AGENCY').map((c) => c.id)).toEqual([winter.id, summer.id]);
    expect(madrid.filter((c) => c.source === 'PUBLIC_HOLIDAY').every((c) => c.id === null)).toBe(true);
    expect(madrid.some((c) => c.startDate === `${year}-12-25`)).toBe(true);
    expect(madrid.some((c) => c.startDate === `${year}-09-11`)).toBe(false);

    await setHolidays('CT');
    const catalonia = await closures(org.secret.key, window);
    expect(catalonia.find((c) => c.startDate === `${year}-09-11`)).toMatchObject({
      id: null,
      source: 'PUBLIC_HOLIDAY',
    });
    expect(catalonia.some((c) => c.startDate === `${year}-01-01`)).toBe(true);
    // The admin API lists the same.
    const viaAdmin = await admin(
      app,
      'GET',
      `/admin/v1/organizations/${org.org.id}/closures?from=${window.from}&to=${window.to}`,
    );
    expect(expectStatus(viaAdmin, 200).data).toEqual(catalonia);
  });

  it('lists from today to a year on by default; a closure is listed whole when it touches the span', async () => {
    const org = await fresh();
    const now = today();
    const make = (startDate: string, endDate: string, name: string) =>
      createClosure(org.secret.key, { startDate, endDate, name });
    const past = await make(addDays(now, -10), addDays(now, -5), 'Past');
    const ongoing = await make(addDays(now, -3), addDays(now, 2), 'Ongoing');
    const soon = await make(addDays(now, 10), addDays(now, 10), 'Soon');
    const far = await make(addDays(now, 370), addDays(now, 371), 'Far');
    expect((await closures(org.secret.key)).map((c) => c.name)).toEqual(['Ongoing', 'Soon']);
    const all = await closures(org.secret.key, { from: addDays(now, -10), to: addDays(now, 370) });
    expect(all.map((c) => c.id)).toEqual([past.id, ongoing.id, soon.id, far.id]);
    expect(all[1]).toMatchObject({ startDate: addDays(now, -3), endDate: addDays(now, 2) });
    // from and to are inclusive.
    expect(
      (await closures(org.secret.key, { from: addDays(now, 10), to: addDays(now, 10) })).map((c) => c.id),
    ).toEqual([soon.id]);
  });

  it('400 naming the field for bad dates, spans and names; nothing is created', async () => {
    const org = await fresh();
    const start = addDays(today(), 30);
    const year = nextYear();
    const cases: [Record<string, unknown>, string][] = [
      [{ startDate: `${year}-02-30`, name: 'x' }, 'body.startDate'],
      [{ startDate: `${year}-13-01`, name: 'x' }, 'body.startDate'],
      [{ startDate: `${String(year).slice(2)}-01-01`, name: 'x' }, 'body.startDate'],
      [{ startDate: start, endDate: `${year}-02-30`, name: 'x' }, 'body.endDate'],
      [{ startDate: start, endDate: addDays(start, -1), name: 'x' }, 'body.endDate'],
      [{ startDate: start, endDate: addDays(start, 366), name: 'x' }, 'body.endDate'],
      [{ startDate: start, name: '   ' }, 'body.name'],
      [{ startDate: start, name: 'x'.repeat(201) }, 'body.name'],
      [{ startDate: start }, 'body.name'],
      [{ name: 'x' }, 'body.startDate'],
    ];
    for (const [body, field] of cases) {
      expect400(
        await call(org.secret.key, 'POST', '/v1/calendar/closures', body),
        field,
        JSON.stringify(body),
      );
    }
    const longest = { from: start, to: addDays(start, 400) };
    expect(await closures(org.secret.key, longest)).toEqual([]);
    // 366 days, inclusive, is the longest closure.
    await createClosure(org.secret.key, { startDate: start, endDate: addDays(start, 365), name: 'Year' });

    const listCases: [Record<string, string>, string][] = [
      [{ from: start, to: addDays(start, -1) }, 'query.to'],
      [{ from: start, to: addDays(start, 732) }, 'query.to'],
      [{ from: `${year}-02-30` }, 'query.from'],
      [{ from: start, to: `${year}-04-31` }, 'query.to'],
    ];
    for (const [query, field] of listCases) {
      expect400(await api(app, 'GET', '/v1/calendar/closures', { key: org.secret.key, query }), field);
    }
    expect(await closures(org.secret.key, { from: start, to: addDays(start, 731) })).toHaveLength(1);
  });

  it("deletes a closure; another organization's key and id can neither see nor delete it (404)", async () => {
    const day = addDays(today(), 20);
    const closure = await createClosure(tenant.secret.key, { startDate: day, name: 'Inventory' });
    const id = closure.id as string;
    const window = { from: day, to: day };
    expect(await closures(other.secret.key, window)).toEqual([]);
    const theirs = expectError(
      await call(other.secret.key, 'DELETE', `/v1/calendar/closures/${id}`),
      404,
      'NOT_FOUND',
    );
    expect(theirs.message).toContain(id);
    expectError(
      await admin(app, 'DELETE', `/admin/v1/organizations/${other.org.id}/closures/${id}`),
      404,
      'NOT_FOUND',
    );
    expect((await closures(tenant.secret.key, window)).map((c) => c.id)).toEqual([id]);

    const deleted = await call(tenant.secret.key, 'DELETE', `/v1/calendar/closures/${id}`);
    expect(expectStatus(deleted, 200)).toEqual({ data: { id, deleted: true } });
    expect(await closures(tenant.secret.key, window)).toEqual([]);
    for (const gone of [id, 'clo_0000000000000000000000', 'nope']) {
      expectError(await call(tenant.secret.key, 'DELETE', `/v1/calendar/closures/${gone}`), 404, 'NOT_FOUND');
    }
  });

  it('are managed by organization id through the admin API', async () => {
    const org = await fresh();
    const day = addDays(today(), 15);
    const base = `/admin/v1/organizations/${org.org.id}/closures`;
    const created = expectStatus(await admin(app, 'POST', base, { startDate: day, name: 'Audit' }), 201).data;
    expect(created).toMatchObject({ id: expect.stringMatching(/^clo_/), source: 'AGENCY', name: 'Audit' });
    expect((await closures(org.secret.key, { from: day, to: day })).map((c) => c.id)).toEqual([created.id]);
    expect400(
      await admin(app, 'POST', base, { startDate: day, endDate: addDays(day, -1), name: 'x' }),
      'body.endDate',
    );
    // An id that is no organization (malformed or unknown) is a 404 on every route.
    for (const orgId of ['org_nope', 'org_0000000000000000000000']) {
      const url = `/admin/v1/organizations/${orgId}/closures`;
      for (const response of [
        await admin(app, 'GET', url),
        await admin(app, 'POST', url, { startDate: day, name: 'x' }),
        await admin(app, 'DELETE', `${url}/${created.id}`),
      ]) {
        expect(expectError(response, 404, 'NOT_FOUND').message, orgId).toMatch(/^(Organization|Closure) /);
      }
    }
    expect(expectStatus(await admin(app, 'DELETE', `${base}/${created.id}`), 200).data).toEqual({
      id: created.id,
      deleted: true,
    });
    expect(expectStatus(await admin(app, 'GET', `${base}?from=${day}&to=${day}`), 200).data).toEqual([]);
  });
});
