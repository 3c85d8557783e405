// Appointments as iCalendar (issue 26, decision 0236), every file read back with an independent
// parser (ical.js): one appointment's .ics (UID, UTC times, status, summary, location, description)
// and an agent's subscription URL (made, fetched without a key, holding exactly that agent's
// appointments of the last 30 days and the next year, cancelled ones as CANCELLED; rotated, the old
// URL is dead; deleted, it is dead too). Keys: another organization sees nothing of ours, a
// publishable key nothing at all, a read-only key reads but cannot make a URL.
import ICAL from 'ical.js';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import {
  busyPublishableKey,
  createAgent,
  createApiKey,
  createProperty,
  createTenant,
  type Tenant,
} from '../../helpers/factories.ts';
import { admin, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

const DAY = 86_400_000;
const HOST = 'crm.agency.test';
const FAST = { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 };

let app: FastifyInstance;
let tenant: Tenant;
let other: Tenant;
/** Publishable key of the booking page, with raised limits. */
let bookingKey: string;
let sequence = 0;

interface Receipt {
  appointmentId: string;
  status: string;
  startsAt: string;
  endsAt: string;
  agentId: string;
  contactId: string;
}

const utcDate = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 10);

/** A request as a calendar client or the agency's server sends it, to our host. */
function call(method: 'GET' | 'POST' | 'DELETE', url: string, key?: string) {
  const headers: Record<string, string> = { host: HOST };
  if (key !== undefined) headers['x-api-key'] = key;
  return app.inject({ method, url, headers });
}

/** Every VEVENT of an iCalendar answer, parsed by ical.js, and its VCALENDAR. */
function parse(response: LightMyRequestResponse) {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toBe('text/calendar; charset=utf-8');
  const calendar = new ICAL.Component(ICAL.parse(response.body));
  expect(calendar.name).toBe('vcalendar');
  const events = calendar.getAllSubcomponents('vevent').map((vevent) => ({
    event: new ICAL.Event(vevent),
    status: vevent.getFirstPropertyValue('status'),
  }));
  return { calendar, events };
}

/** A bookable agent (UTC, every day 09:00-18:00, 30-minute slots). */
async function bookableAgent(fields: Record<string, unknown> = {}, booking: Record<string, unknown> = {}) {
  sequence += 1;
  const slug = `ics-${Date.now().toString(36)}-${sequence}`;
  const agent = await createAgent(app, tenant.org.id, {
    bookingSlug: slug,
    booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7], ...booking },
    ...fields,
  });
  return { id: agent.id, slug };
}

/** Books on the page, each visitor with a phone of their own (one contact each). */
async function book(slug: string, date: string, startTime: string, body: Record<string, unknown> = {}) {
  sequence += 1;
  const phone = `+3461172${String(1000 + sequence)}`;
  const response = await app.inject({
    method: 'POST',
    url: `/v1/booking/${slug}`,
    headers: { 'x-api-key': bookingKey },
    payload: { firstName: 'Marta', lastName: 'Gil', phone, date, startTime, ...body },
  });
  return { ...(expectStatus(response, 201).data.data as Receipt), phone };
}

/** An appointment recorded in the back office (any time, past ones too). */
async function recorded(agentId: string, contactId: string, startsAt: Date, status = 'SCHEDULED') {
  // On a whole minute: iCalendar times hold whole seconds.
  const minute = new Date(Math.floor(startsAt.getTime() / 60_000) * 60_000);
  const response = await admin(app, 'POST', `/admin/v1/organizations/${tenant.org.id}/appointments`, {
    agentId,
    contactId,
    startsAt: minute.toISOString(),
    durationMinutes: 45,
    status,
  });
  return expectStatus(response, 201).data as { id: string; startsAt: string; endsAt: string };
}

const cancel = (id: string) =>
  app.inject({
    method: 'POST',
    url: `/v1/appointments/${id}/cancel`,
    headers: { 'x-api-key': tenant.secret.key },
    payload: { reason: 'The client is ill' },
  });

async function makeFeed(agentId: string) {
  const body = expectStatus(await call('POST', `/v1/calendar/feeds/${agentId}`, tenant.secret.key), 201);
  return body.data as { agentId: string; token: string; url: string; tokenPrefix: string; createdAt: string };
}
const pathOf = (url: string) => new URL(url).pathname;
const iso = (time: { toJSDate(): Date }) => time.toJSDate().toISOString();

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: FAST });
  other = await createTenant(app, { secret: FAST });
  bookingKey = await busyPublishableKey(app, tenant.org.id);
});
afterAll(async () => {
  await app.close();
});

describe('GET /v1/appointments/{id}.ics', () => {
  it('is one VEVENT: stable UID, UTC times, TENTATIVE while SCHEDULED, summary, location, description', async () => {
    const agent = await bookableAgent();
    const property = await createProperty(app, tenant.org.id, { address: 'Calle Larios 5', city: 'Málaga' });
    const receipt = await book(agent.slug, utcDate(5), '10:30', {
      propertyId: property.id,
      email: 'marta@example.com',
    });
    expect(receipt.status).toBe('SCHEDULED');
    const response = await call('GET', `/v1/appointments/${receipt.appointmentId}.ics`, tenant.secret.key);
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="${receipt.appointmentId}.ics"`,
    );
    const { events } = parse(response);
    expect(events).toHaveLength(1);
    const { event, status } = events[0] as (typeof events)[0];
    expect(event.uid).toBe(`${receipt.appointmentId}@agency-crm`);
    expect(iso(event.startDate)).toBe(receipt.startsAt);
    expect(iso(event.endDate)).toBe(receipt.endsAt);
    // Written in UTC (…Z), not as floating or zoned local times.
    expect(response.body).toMatch(/^DTSTART:\d{8}T\d{6}Z\r?$/m);
    expect(response.body).toMatch(/^DTEND:\d{8}T\d{6}Z\r?$/m);
    expect(status).toBe('TENTATIVE');
    expect(event.summary).toBe('Showing with Marta Gil');
    expect(event.location).toBe('Calle Larios 5, Málaga');
    expect(event.description.split('\n')).toEqual([
      `Listing: ${property.title as string} (${property.code})`,
      `Phone: ${receipt.phone}`,
      'Email: marta@example.com',
      'Status: SCHEDULED',
      `Appointment: ${receipt.appointmentId}`,
    ]);
    // The same UID in every download.
    const again = parse(
      await call('GET', `/v1/appointments/${receipt.appointmentId}.ics`, tenant.readOnly.key),
    );
    expect(again.events.map((e) => e.event.uid)).toEqual([event.uid]);
  });

  it('is CONFIRMED when confirmed, then CANCELLED (summary prefixed) in the file and in the feed', async () => {
    const agent = await bookableAgent({ firstName: 'Marta', lastName: 'Soler' }, { autoConfirm: true });
    const receipt = await book(agent.slug, utcDate(6), '11:00', { firstName: 'Jorge', lastName: 'Ruiz' });
    const url = `/v1/appointments/${receipt.appointmentId}.ics`;
    const confirmed = parse(await call('GET', url, tenant.secret.key)).events[0];
    expect(confirmed?.status).toBe('CONFIRMED');
    expect(confirmed?.event.summary).toBe('Showing with Jorge Ruiz');
    expect(confirmed?.event.location).toBeNull();

    expectStatus(await cancel(receipt.appointmentId), 200);
    const cancelled = parse(await call('GET', url, tenant.secret.key)).events;
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]?.status).toBe('CANCELLED');
    expect(cancelled[0]?.event.summary).toBe('Cancelled: Showing with Jorge Ruiz');
    expect(cancelled[0]?.event.uid).toBe(confirmed?.event.uid);

    const feed = await makeFeed(agent.id);
    const inFeed = parse(await call('GET', pathOf(feed.url))).events;
    expect(inFeed.map((e) => [e.event.uid, e.status, e.event.summary])).toEqual([
      [confirmed?.event.uid, 'CANCELLED', 'Cancelled: Showing with Jorge Ruiz'],
    ]);
  });

  it('keeps its UID whatever host serves it, and ends every line with CRLF, the last one too', async () => {
    const agent = await bookableAgent();
    const receipt = await book(agent.slug, utcDate(5), '15:00');
    const url = `/v1/appointments/${receipt.appointmentId}.ics`;
    const answers = await Promise.all(
      ['crm.agency.test', 'new-domain.example', '127.0.0.1:3000'].map((host) =>
        app.inject({ method: 'GET', url, headers: { host, 'x-api-key': tenant.secret.key } }),
      ),
    );
    const uids = answers.map((answer) => parse(answer).events.map((e) => e.event.uid));
    expect(uids).toEqual([
      [`${receipt.appointmentId}@agency-crm`],
      [`${receipt.appointmentId}@agency-crm`],
      [`${receipt.appointmentId}@agency-crm`],
    ]);
    for (const { body } of answers) {
      expect(body.endsWith('END:VCALENDAR\r\n')).toBe(true);
      // No bare LF: every line break is CRLF (RFC 5545 3.1).
      expect(body.replaceAll('\r\n', '')).not.toContain('\n');
    }
  });

  it('SEQUENCE is 0 when booked and one more at each move or cancel, even within one second', async () => {
    const agent = await bookableAgent();
    const receipt = await book(agent.slug, utcDate(8), '10:00');
    const url = `/v1/appointments/${receipt.appointmentId}.ics`;
    const sequenceOf = async () =>
      parse(await call('GET', url, tenant.secret.key)).events.map((e) => e.event.sequence);
    expect(await sequenceOf()).toEqual([0]);
    // A move, a move back, then a cancel, back to back (well within one second here): the old SEQUENCE,
    // the seconds of updatedAt, gave two of them the same number.
    for (const startTime of ['11:00', '10:00']) {
      const moved = await app.inject({
        method: 'PATCH',
        url: `/v1/appointments/${receipt.appointmentId}`,
        headers: { 'x-api-key': tenant.secret.key },
        payload: { date: utcDate(8), startTime },
      });
      expectStatus(moved, 200);
    }
    expectStatus(await cancel(receipt.appointmentId), 200);
    expect(await sequenceOf()).toEqual([3]);
  });

  it("404 for an unknown id, a malformed one and another organization's appointment", async () => {
    const agent = await bookableAgent();
    const receipt = await book(agent.slug, utcDate(7), '12:00');
    for (const [id, key] of [
      ['apt_00000000000000000000000000', tenant.secret.key],
      ['nope', tenant.secret.key],
      [receipt.appointmentId, other.secret.key],
      [receipt.appointmentId, other.readOnly.key],
    ] as const) {
      expectError(await call('GET', `/v1/appointments/${id}.ics`, key), 404, 'NOT_FOUND');
    }
  });
});

describe('calendar subscription URLs', () => {
  it("serve, without a key, exactly the agent's appointments of the last 30 days and the next year", async () => {
    const agent = await bookableAgent({ firstName: 'Elena', lastName: 'Vidal' });
    const colleague = await bookableAgent();
    const first = await book(agent.slug, utcDate(3), '09:00');
    const second = await book(agent.slug, utcDate(20), '17:30');
    const now = Date.now();
    const lastWeek = await recorded(agent.id, first.contactId, new Date(now - 10 * DAY), 'COMPLETED');
    await recorded(agent.id, first.contactId, new Date(now - 40 * DAY), 'COMPLETED');
    await recorded(agent.id, first.contactId, new Date(now + 400 * DAY));
    await book(colleague.slug, utcDate(3), '09:00');

    const feed = await makeFeed(agent.id);
    expect(feed).toEqual({
      agentId: agent.id,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      url: `http://${HOST}/calendars/${feed.token}.ics`,
      tokenPrefix: feed.token.slice(0, 6),
      createdAt: expect.any(String),
    });
    const response = await call('GET', pathOf(feed.url));
    expect(response.headers['cache-control']).toBe('private, no-cache');
    const { calendar, events } = parse(response);
    expect(calendar.getFirstPropertyValue('x-wr-calname')).toBe('Appointments of Elena Vidal');
    const expected = [lastWeek, ...[first, second].map((r) => ({ ...r, id: r.appointmentId }))];
    expect(events.map(({ event }) => [event.uid, iso(event.startDate), iso(event.endDate)])).toEqual(
      expected.map((a) => [`${a.id}@agency-crm`, a.startsAt, a.endsAt]),
    );
    expect(events.map((e) => e.status)).toEqual(['CONFIRMED', 'TENTATIVE', 'TENTATIVE']);

    // The list shows the token's first characters, never the token.
    const list = await call('GET', '/v1/calendar/feeds', tenant.readOnly.key);
    const feeds = expectStatus(list, 200).data as { agentId: string }[];
    expect(feeds.filter((f) => f.agentId === agent.id)).toEqual([
      { agentId: agent.id, tokenPrefix: feed.tokenPrefix, createdAt: feed.createdAt },
    ]);
    expect(list.body).not.toContain(feed.token);
  });

  it('rotating kills the old URL at once; deleting kills the URL', async () => {
    const agent = await bookableAgent();
    await book(agent.slug, utcDate(4), '10:00');
    const old = await makeFeed(agent.id);
    const fresh = await makeFeed(agent.id);
    expect(fresh.token).not.toBe(old.token);
    expectError(await call('GET', pathOf(old.url)), 404, 'NOT_FOUND');
    expect(parse(await call('GET', pathOf(fresh.url))).events).toHaveLength(1);
    const listed = expectStatus(await call('GET', '/v1/calendar/feeds', tenant.secret.key), 200).data;
    expect(listed.filter((f: { agentId: string }) => f.agentId === agent.id)).toEqual([
      { agentId: agent.id, tokenPrefix: fresh.tokenPrefix, createdAt: fresh.createdAt },
    ]);

    expect(
      expectStatus(await call('DELETE', `/v1/calendar/feeds/${agent.id}`, tenant.secret.key), 200),
    ).toEqual({ data: { id: agent.id, deleted: true } });
    expectError(await call('GET', pathOf(fresh.url)), 404, 'NOT_FOUND');
    expectError(await call('DELETE', `/v1/calendar/feeds/${agent.id}`, tenant.secret.key), 404, 'NOT_FOUND');
    const after = expectStatus(await call('GET', '/v1/calendar/feeds', tenant.secret.key), 200).data;
    expect(after.map((f: { agentId: string }) => f.agentId)).not.toContain(agent.id);
    // A made-up token is no calendar either.
    expectError(await call('GET', `/calendars/${'x'.repeat(43)}.ics`), 404, 'NOT_FOUND');
  });

  it('belong to their organization: another one can neither make, remove nor list ours', async () => {
    const agent = await bookableAgent();
    await book(agent.slug, utcDate(5), '13:00');
    const feed = await makeFeed(agent.id);
    expectError(await call('POST', `/v1/calendar/feeds/${agent.id}`, other.secret.key), 404, 'NOT_FOUND');
    expectError(await call('DELETE', `/v1/calendar/feeds/${agent.id}`, other.secret.key), 404, 'NOT_FOUND');
    const theirs = expectStatus(await call('GET', '/v1/calendar/feeds', other.secret.key), 200).data;
    expect(theirs).toEqual([]);
    // Our URL still works, unchanged.
    expect(parse(await call('GET', pathOf(feed.url))).events).toHaveLength(1);
  });
});

describe('keys and scopes', () => {
  it('publishable: 403 everywhere; read-only: reads, but 403 on making or removing a URL', async () => {
    const agent = await bookableAgent();
    const receipt = await book(agent.slug, utcDate(8), '09:30');
    const ics = `/v1/appointments/${receipt.appointmentId}.ics`;
    const feeds = `/v1/calendar/feeds/${agent.id}`;
    for (const [method, url] of [
      ['GET', ics],
      ['GET', '/v1/calendar/feeds'],
      ['POST', feeds],
      ['DELETE', feeds],
    ] as const) {
      expectError(await call(method, url, tenant.publishable.key), 403, 'FORBIDDEN');
    }
    expect(parse(await call('GET', ics, tenant.readOnly.key)).events).toHaveLength(1);
    expectStatus(await call('GET', '/v1/calendar/feeds', tenant.readOnly.key), 200);
    expectError(await call('POST', feeds, tenant.readOnly.key), 403, 'FORBIDDEN');
    expectError(await call('DELETE', feeds, tenant.readOnly.key), 403, 'FORBIDDEN');
    // No key at all: 401 (only the subscription URL itself is public).
    expectError(await call('GET', ics), 401, 'UNAUTHORIZED');
    // Making a URL takes appointments:write at access level 3.
    const noWrite = await createApiKey(app, tenant.org.id, { type: 'secret', accessLevel: 3, ...FAST });
    const level2 = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: [...SCOPES],
      accessLevel: 2,
      ...FAST,
    });
    expect(parse(await call('GET', ics, noWrite.key)).events).toHaveLength(1);
    expectError(await call('POST', feeds, noWrite.key), 403, 'FORBIDDEN');
    expectError(await call('POST', feeds, level2.key), 403, 'FORBIDDEN');
    const listed = expectStatus(await call('GET', '/v1/calendar/feeds', tenant.secret.key), 200).data;
    expect(listed.map((f: { agentId: string }) => f.agentId)).not.toContain(agent.id);
  });
});
