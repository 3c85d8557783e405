import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningJobs } from '../../../src/platform/jobs/scheduler.ts';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import {
  busyPublishableKey,
  createAgent,
  createApiKey,
  createProperty,
  createTenant,
  FAST,
  type Tenant,
} from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { startWorker, subscribe } from '../webhooks/support.ts';
import { appointmentsOf, visitRequestsOf } from './support.ts';

interface Envelope {
  id: string;
  sequence: number;
  type: string;
  data: Record<string, Record<string, unknown>>;
  actor: { kind: string };
}

let app: FastifyInstance;
let receiver: Receiver;
let worker: RunningJobs;
let tenant: Tenant;
let formKey: string;
let property: { id: string; code: string; title?: unknown };
let phoneSequence = Math.floor(Math.random() * 9_000_000);
let slugSequence = 0;

const DATE = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
const key = () => tenant.secret.key;
const fieldsOf = (error: { details?: { field: string }[] }) => (error.details ?? []).map((d) => d.field);

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  receiver = await new Receiver().start();
  worker = startWorker(await testDatabase());
  tenant = await createTenant(app, { secret: FAST });
  formKey = await busyPublishableKey(app, tenant.org.id);
  property = await createProperty(app, tenant.org.id);
  await subscribe(app, key(), receiver.url('/visits'), ['visit_request.*', 'appointment.created']);
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await app.close();
});

/** A PENDING visit request of `t` about `propertyId`, asked through the portal form. */
async function askVisit(t = tenant, publishable = formKey, propertyId = property.id): Promise<string> {
  phoneSequence += 1;
  const response = await api(app, 'POST', '/v1/leads/schedule', {
    key: publishable,
    body: {
      firstName: 'Lucía',
      phone: `+3462${String(phoneSequence % 10_000_000).padStart(7, '0')}`,
      propertyId,
      preferredTime: 'morning',
    },
  });
  void t;
  return expectStatus(response, 201).data.visitRequestId as string;
}

/** An agent taking bookings every day 09:00-18:00 UTC, 30-minute slots. */
async function bookableAgent(booking: Record<string, unknown> = {}, orgId = tenant.org.id) {
  slugSequence += 1;
  return createAgent(app, orgId, {
    bookingSlug: `vr-${Date.now().toString(36)}-${slugSequence}`,
    booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7], ...booking },
  });
}

const confirm = (
  id: string,
  body: Record<string, unknown>,
  options: { key?: string; headers?: Record<string, string> } = {},
) =>
  api(app, 'POST', `/v1/visit-requests/${id}/confirm`, {
    key: options.key ?? key(),
    headers: options.headers,
    body,
  });
const decline = (
  id: string,
  body: Record<string, unknown>,
  options: { key?: string; headers?: Record<string, string> } = {},
) =>
  api(app, 'POST', `/v1/visit-requests/${id}/decline`, {
    key: options.key ?? key(),
    headers: options.headers,
    body,
  });
const getOne = (id: string, apiKey = key()) => api(app, 'GET', `/v1/visit-requests/${id}`, { key: apiKey });

/**
 * The distinct events the receiver got whose visit request or appointment is one of `ids`, oldest
 * first (deliveries are at least once: a retried one comes again with the same id).
 */
async function receivedFor(ids: string[], count: number): Promise<Envelope[]> {
  const matching = () => {
    const seen = new Map<string, Envelope>();
    for (const request of receiver.at('/visits')) {
      const envelope = JSON.parse(request.body) as Envelope;
      const about = [envelope.data.visitRequest?.id, envelope.data.appointment?.id];
      if (about.some((id) => ids.includes(id as string))) seen.set(envelope.id, envelope);
    }
    // Deliveries need not arrive in order; `sequence` is the order the events were recorded in.
    return [...seen.values()].sort((a, b) => a.sequence - b.sequence);
  };
  const deadline = Date.now() + 15_000;
  while (matching().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return matching();
}

describe('GET /v1/visit-requests/{id}', () => {
  it('answers a PENDING request with no decision yet, as the list shows it', async () => {
    const id = await askVisit();
    const one = expectStatus(await getOne(id), 200).data;
    expect(one).toStrictEqual({
      id,
      status: 'PENDING',
      contact: { id: expect.stringMatching(/^ct_/), fullName: 'Lucía' },
      property: { id: property.id, code: property.code, title: property.title },
      preferredDate: null,
      preferredTime: 'morning',
      message: null,
      appointmentId: null,
      declineReason: null,
      decidedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const listed = expectStatus(await api(app, 'GET', '/v1/visit-requests', { key: key() }), 200).data;
    expect(listed.find((request: { id: string }) => request.id === id)).toStrictEqual(one);
    expectStatus(await getOne(id, tenant.readOnly.key), 200);
  });
});

describe('POST /v1/visit-requests/{id}/confirm', () => {
  it('books the appointment with the request’s contact and property and confirms the request, in one go', async () => {
    const agent = await bookableAgent({ autoConfirm: true });
    const id = await askVisit();
    const pending = expectStatus(await getOne(id), 200).data;
    const confirmed = expectStatus(
      await confirm(id, { agentId: agent.id, date: DATE, startTime: '10:00', type: 'SHOWING' }),
      200,
    ).data;
    expect(confirmed).toMatchObject({
      id,
      status: 'CONFIRMED',
      appointmentId: expect.stringMatching(/^apt_/),
      declineReason: null,
      decidedAt: expect.any(String),
      contact: pending.contact,
    });
    expect(confirmed.updatedAt).toBe(confirmed.decidedAt);
    const appointment = expectStatus(
      await api(app, 'GET', `/v1/appointments/${confirmed.appointmentId}`, { key: key() }),
      200,
    ).data;
    expect(appointment).toMatchObject({
      agentId: agent.id,
      contactId: pending.contact.id,
      propertyId: property.id,
      type: 'SHOWING',
      status: 'CONFIRMED',
      source: 'API',
      startsAt: `${DATE}T10:00:00.000Z`,
      endsAt: `${DATE}T10:30:00.000Z`,
    });
    expect(expectStatus(await getOne(id), 200).data).toStrictEqual(confirmed);

    // The events, as a subscriber receives them: the appointment first, then the decision.
    const [created, decided] = await receivedFor([id, confirmed.appointmentId], 2);
    expect(created?.type).toBe('appointment.created');
    expect(created?.data.appointment).toMatchObject({ id: confirmed.appointmentId, source: 'API' });
    expect(decided?.type).toBe('visit_request.confirmed');
    expect(decided?.actor.kind).toBe('API');
    expect(() => eventCatalog.check('visit_request.confirmed', decided?.data)).not.toThrow();
    expect(decided?.data.visitRequest).toMatchObject({
      id,
      status: 'CONFIRMED',
      appointmentId: confirmed.appointmentId,
      contactId: pending.contact.id,
      propertyId: property.id,
      declineReason: null,
      decidedAt: confirmed.decidedAt,
    });
    expect(decided?.data.appointment).toMatchObject({
      id: confirmed.appointmentId,
      agentId: agent.id,
      status: 'CONFIRMED',
      startsAt: `${DATE}T10:00:00.000Z`,
    });
  });

  it('400 naming the field for a bad agent, date or time; nothing is kept', async () => {
    const agent = await bookableAgent();
    const id = await askVisit();
    const before = (await appointmentsOf(tenant.org.id)).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ date: DATE, startTime: '10:00' }, 'body.agentId'],
      [{ agentId: 'agt_unknown', date: DATE, startTime: '10:00' }, 'body.agentId'],
      [{ agentId: agent.id, date: '2020-01-01', startTime: '10:00' }, 'body.date'],
      [{ agentId: agent.id, date: DATE, startTime: '10:07' }, 'body.startTime'],
      [{ agentId: agent.id, date: DATE, startTime: '25:00' }, 'body.startTime'],
      [{ agentId: agent.id, date: DATE, startTime: '10:00', type: 'PARTY' }, 'body.type'],
      [{ agentId: agent.id, date: DATE, startTime: '10:00', contactId: 'ct_x' }, 'body.contactId'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await confirm(id, body), 400, 'VALIDATION_ERROR');
      expect(fieldsOf(error), JSON.stringify(body)).toContain(field);
    }
    expect(expectStatus(await getOne(id), 200).data).toMatchObject({
      status: 'PENDING',
      appointmentId: null,
    });
    expect(await appointmentsOf(tenant.org.id)).toHaveLength(before);
  });

  it('409 DUPLICATE when the slot is taken, and the request stays PENDING', async () => {
    const agent = await bookableAgent();
    const first = await askVisit();
    const second = await askVisit();
    expectStatus(await confirm(first, { agentId: agent.id, date: DATE, startTime: '11:00' }), 200);
    expectError(
      await confirm(second, { agentId: agent.id, date: DATE, startTime: '11:00' }),
      409,
      'DUPLICATE',
    );
    const [row] = (await visitRequestsOf(tenant.org.id)).filter((request) => request.id === second);
    expect(row).toMatchObject({ status: 'PENDING', appointmentId: null, decidedAt: null });
    // Another free slot still confirms it.
    expectStatus(await confirm(second, { agentId: agent.id, date: DATE, startTime: '11:30' }), 200);
  });

  it('two racing confirmations of one request: one books, the other is a 409, one appointment', async () => {
    const agent = await bookableAgent();
    const id = await askVisit();
    const before = (await appointmentsOf(tenant.org.id)).length;
    const answers = await Promise.all([
      confirm(id, { agentId: agent.id, date: DATE, startTime: '12:00' }),
      confirm(id, { agentId: agent.id, date: DATE, startTime: '12:30' }),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409]);
    expect(await appointmentsOf(tenant.org.id)).toHaveLength(before + 1);
  });
});

describe('POST /v1/visit-requests/{id}/decline', () => {
  it('declines with the trimmed reason and decidedAt, and records visit_request.declined', async () => {
    const id = await askVisit();
    const declined = expectStatus(await decline(id, { reason: '  Sold yesterday  ' }), 200).data;
    expect(declined).toMatchObject({
      id,
      status: 'DECLINED',
      declineReason: 'Sold yesterday',
      appointmentId: null,
      decidedAt: expect.any(String),
    });
    const [event] = await receivedFor([id], 1);
    expect(event?.type).toBe('visit_request.declined');
    expect(() => eventCatalog.check('visit_request.declined', event?.data)).not.toThrow();
    expect(event?.data.visitRequest).toMatchObject({
      id,
      status: 'DECLINED',
      declineReason: 'Sold yesterday',
      appointmentId: null,
      decidedAt: declined.decidedAt,
    });
    const listed = expectStatus(
      await api(app, 'GET', '/v1/visit-requests', { key: key(), query: { status: 'DECLINED' } }),
      200,
    ).data;
    expect(listed.map((request: { id: string }) => request.id)).toContain(id);
  });

  it('400 naming body.reason when it is missing, blank or longer than 1000 characters', async () => {
    const id = await askVisit();
    for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 'x'.repeat(1001) }]) {
      const error = expectError(await decline(id, body), 400, 'VALIDATION_ERROR');
      expect(fieldsOf(error), JSON.stringify(body).slice(0, 40)).toContain('body.reason');
    }
    expectStatus(await decline(id, { reason: 'x'.repeat(1000) }), 200);
  });
});

describe('deciding twice, replays', () => {
  it('409 CONFLICT naming the status once a request is decided, either way', async () => {
    const agent = await bookableAgent();
    const confirmedId = await askVisit();
    expectStatus(await confirm(confirmedId, { agentId: agent.id, date: DATE, startTime: '14:00' }), 200);
    const again = expectError(
      await confirm(confirmedId, { agentId: agent.id, date: DATE, startTime: '14:30' }),
      409,
      'CONFLICT',
    );
    expect(again.message).toContain('CONFIRMED');
    expect(
      expectError(await decline(confirmedId, { reason: 'Too late' }), 409, 'CONFLICT').message,
    ).toContain('CONFIRMED');

    const declinedId = await askVisit();
    expectStatus(await decline(declinedId, { reason: 'No' }), 200);
    const twice = expectError(await decline(declinedId, { reason: 'Still no' }), 409, 'CONFLICT');
    expect(twice.message).toContain('DECLINED');
    expect(
      expectError(
        await confirm(declinedId, { agentId: agent.id, date: DATE, startTime: '15:00' }),
        409,
        'CONFLICT',
      ).message,
    ).toContain('DECLINED');
    expect(expectStatus(await getOne(declinedId), 200).data.declineReason).toBe('No');
  });

  it('an Idempotency-Key replays the confirmation and the decline without deciding again', async () => {
    const agent = await bookableAgent();
    const id = await askVisit();
    const headers = { 'idempotency-key': `vr-confirm-${id}` };
    const body = { agentId: agent.id, date: DATE, startTime: '16:00' };
    const before = (await appointmentsOf(tenant.org.id)).length;
    const first = await confirm(id, body, { headers });
    const replay = await confirm(id, body, { headers });
    expect(expectStatus(replay, 200)).toStrictEqual(expectStatus(first, 200));
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await appointmentsOf(tenant.org.id)).toHaveLength(before + 1);

    const other = await askVisit();
    const declineHeaders = { 'idempotency-key': `vr-decline-${other}` };
    const declined = await decline(other, { reason: 'Sold' }, { headers: declineHeaders });
    const declineReplay = await decline(other, { reason: 'Sold' }, { headers: declineHeaders });
    expect(expectStatus(declineReplay, 200)).toStrictEqual(expectStatus(declined, 200));
    expect(declineReplay.headers['idempotent-replayed']).toBe('true');
    expectError(await decline(other, { reason: 'Other' }, { headers: declineHeaders }), 409, 'DUPLICATE');
  });
});

describe('visit request decisions: security', () => {
  it('403 without appointments:write, below access level 3, and for publishable and read-only keys', async () => {
    const agent = await bookableAgent();
    const id = await askVisit();
    const body = { agentId: agent.id, date: DATE, startTime: '17:00' };
    const noScope = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      accessLevel: 3,
      scopes: SCOPES.filter((scope) => scope !== 'appointments:write'),
    });
    const lowLevel = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      accessLevel: 1,
      scopes: ['appointments:write'],
    });
    for (const apiKey of [noScope.key, lowLevel.key, tenant.publishable.key, tenant.readOnly.key]) {
      expectError(await confirm(id, body, { key: apiKey }), 403, 'FORBIDDEN');
      expectError(await decline(id, { reason: 'No' }, { key: apiKey }), 403, 'FORBIDDEN');
    }
    expect(expectError(await confirm(id, body, { key: noScope.key }), 403, 'FORBIDDEN').message).toContain(
      'appointments:write',
    );
    const noRead = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['contacts:read'] });
    expectError(await getOne(id, noRead.key), 403, 'FORBIDDEN');
    expectError(await getOne(id, tenant.publishable.key), 403, 'FORBIDDEN');
    expect(expectStatus(await getOne(id), 200).data.status).toBe('PENDING');
  });

  it("404, one answer, for a malformed, unknown or another organization's request; theirs stays PENDING", async () => {
    const other = await createTenant(app, { secret: { writeLimitPerMinute: 100_000 } });
    const otherProperty = await createProperty(app, other.org.id);
    const theirs = await askVisit(other, await busyPublishableKey(app, other.org.id), otherProperty.id);
    const agent = await bookableAgent();
    for (const id of ['nope', 'vr_0VhJ3kQ2Zt8mX1pR4sT6uE', theirs]) {
      expectError(await getOne(id), 404, 'NOT_FOUND');
      expectError(await confirm(id, { agentId: agent.id, date: DATE, startTime: '17:30' }), 404, 'NOT_FOUND');
      expectError(await decline(id, { reason: 'No' }), 404, 'NOT_FOUND');
    }
    expect(expectStatus(await getOne(theirs, other.secret.key), 200).data.status).toBe('PENDING');
  });
});
