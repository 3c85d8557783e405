import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import { createContact, createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import {
  createDeal,
  createPipeline,
  dealsPath,
  eventsOf,
  fieldsOf,
  stageNamed,
  type StoredEvent,
  type TestDeal,
  type TestPipeline,
} from './support.ts';

const MOVE_EVENTS = ['deal.stage_changed', 'deal.won', 'deal.lost'];
/** SPEC.md "Contact (inside event payloads)". */
const SPEC_CONTACT_FIELDS = [
  'id',
  'code',
  'firstName',
  'lastName',
  'fullName',
  'email',
  'phone',
  'source',
  'status',
  'type',
  'score',
  'ownerId',
  'preferredCity',
  'preferredType',
  'budget',
  'currency',
  'tags',
  'createdAt',
];
/** SPEC.md "Transition (inside deal events)", exactly. */
const TRANSITION_FIELDS = [
  'automated',
  'fromStageId',
  'fromStageName',
  'lostReason',
  'pipelineId',
  'toStageId',
  'toStageName',
];

type Deal = TestDeal;

let app: FastifyInstance;
let tenant: Tenant;
let pipeline: TestPipeline;
let contactId: string;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
  pipeline = await createPipeline(app, tenant.org.id);
  contactId = (await createContact(app, tenant.org.id, { body: { email: 'lucia@example.com' } })).id;
});
afterAll(async () => {
  await app.close();
});

const movePath = (dealId: string, orgId = tenant.org.id) => `${dealsPath(orgId)}/${dealId}/move`;

async function move(dealId: string, body: Record<string, unknown>): Promise<Deal> {
  return expectStatus(await admin(app, 'POST', movePath(dealId), body), 200).data;
}

/** The move events of one deal recorded after `since` (an event id), oldest first. */
async function moveEvents(dealId: string, since?: string): Promise<StoredEvent[]> {
  return (await eventsOf(tenant.org.id, MOVE_EVENTS)).filter(
    (e) => (e.data.deal as Deal).id === dealId && (since === undefined || e.id > since),
  );
}

async function lastEventId(): Promise<string> {
  const all = await eventsOf(tenant.org.id, MOVE_EVENTS);
  return all.at(-1)?.id ?? '';
}

function checkPayload(event: StoredEvent) {
  expect(() => eventCatalog.check(event.type, event.data)).not.toThrow();
  expect(Object.keys(event.data).sort()).toEqual(['contact', 'deal', 'transition']);
  expect(Object.keys(event.data.transition as object).sort()).toEqual(TRANSITION_FIELDS);
  for (const field of SPEC_CONTACT_FIELDS) expect(event.data.contact).toHaveProperty(field);
}

describe('moving a deal: happy path', () => {
  it('moves to another OPEN stage: probability of the stage, stageEnteredAt now, one deal.stage_changed by a USER', async () => {
    const deal = await createDeal(app, tenant.org.id, { contactId });
    const offer = stageNamed(pipeline, 'Offer');
    const before = await lastEventId();
    const moved = await move(deal.id, { stageId: offer.id });
    expect(moved).toMatchObject({
      ...deal,
      stageId: offer.id,
      stageName: 'Offer',
      status: 'OPEN',
      probability: 90,
      closedAt: null,
      lostReason: null,
      stageEnteredAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(moved.stageEnteredAt > (deal.stageEnteredAt as string)).toBe(true);
    expect(moved.updatedAt).toBe(moved.stageEnteredAt);
    expect(expectStatus(await admin(app, 'GET', `${dealsPath(tenant.org.id)}/${deal.id}`), 200).data).toEqual(
      moved,
    );

    const events = await moveEvents(deal.id, before);
    expect(events.map((e) => e.type)).toEqual(['deal.stage_changed']);
    const [changed] = events as [StoredEvent];
    checkPayload(changed);
    expect(changed.actor).toEqual({ kind: 'USER', userId: null });
    expect(changed.data.deal).toEqual(moved);
    expect(changed.data.transition).toEqual({
      fromStageId: stageNamed(pipeline, 'New').id,
      fromStageName: 'New',
      toStageId: offer.id,
      toStageName: 'Offer',
      pipelineId: pipeline.id,
      lostReason: null,
      automated: false,
    });
    expect(changed.data.contact).toMatchObject({
      id: contactId,
      email: 'lucia@example.com',
      source: 'FINDER',
    });
  });

  it('moves into a WON stage by an automation: status WON, probability 100, closedAt set; stage_changed then deal.won, by AUTOMATION', async () => {
    const deal = await createDeal(app, tenant.org.id, {
      contactId,
      stageId: stageNamed(pipeline, 'Visit').id,
    });
    const won = stageNamed(pipeline, 'Won');
    const before = await lastEventId();
    const moved = await move(deal.id, { stageId: won.id, automated: true });
    expect(moved).toMatchObject({ status: 'WON', probability: 100, stageId: won.id, stageName: 'Won' });
    expect(moved.closedAt).toBe(moved.stageEnteredAt);

    const events = await moveEvents(deal.id, before);
    expect(events.map((e) => e.type)).toEqual(['deal.stage_changed', 'deal.won']);
    for (const event of events) {
      checkPayload(event);
      expect(event.actor).toEqual({ kind: 'AUTOMATION', userId: null });
      expect(event.data.deal).toEqual(moved);
      expect(event.data.transition).toEqual({
        fromStageId: stageNamed(pipeline, 'Visit').id,
        fromStageName: 'Visit',
        toStageId: won.id,
        toStageName: 'Won',
        pipelineId: pipeline.id,
        lostReason: null,
        automated: true,
      });
    }
    // Both events carry the same contact: the full SPEC Contact at the time of the move.
    expect(events[0]?.data.contact).toEqual(events[1]?.data.contact);
  });

  it('moves into a LOST stage with a lostReason: status LOST, probability 0, closedAt set, deal.lost carries the reason', async () => {
    const deal = await createDeal(app, tenant.org.id, { contactId });
    const lost = stageNamed(pipeline, 'Lost');
    const before = await lastEventId();
    const moved = await move(deal.id, { stageId: lost.id, lostReason: 'Bought elsewhere', automated: false });
    expect(moved).toMatchObject({ status: 'LOST', probability: 0, lostReason: 'Bought elsewhere' });
    expect(moved.closedAt).toBe(moved.stageEnteredAt);
    const events = await moveEvents(deal.id, before);
    expect(events.map((e) => e.type)).toEqual(['deal.stage_changed', 'deal.lost']);
    for (const event of events) {
      checkPayload(event);
      expect(event.actor).toEqual({ kind: 'USER', userId: null });
      expect(event.data.transition).toMatchObject({ lostReason: 'Bought elsewhere', toStageName: 'Lost' });
    }
  });

  it('loses a deal without a reason (lostReason null), then reopens it: closedAt and lostReason cleared', async () => {
    const deal = await createDeal(app, tenant.org.id, { contactId });
    const lost = await move(deal.id, { stageId: stageNamed(pipeline, 'Lost').id, lostReason: null });
    expect(lost).toMatchObject({ status: 'LOST', lostReason: null });
    const before = await lastEventId();
    const reopened = await move(deal.id, { stageId: stageNamed(pipeline, 'Visit').id });
    expect(reopened).toMatchObject({ status: 'OPEN', probability: 50, closedAt: null, lostReason: null });
    const events = await moveEvents(deal.id, before);
    expect(events.map((e) => e.type)).toEqual(['deal.stage_changed']);
    expect(events[0]?.data.transition).toMatchObject({
      fromStageName: 'Lost',
      toStageName: 'Visit',
      lostReason: null,
    });

    const withReason = await move(deal.id, { stageId: stageNamed(pipeline, 'Lost').id, lostReason: 'Price' });
    expect(withReason.lostReason).toBe('Price');
    const won = await move(deal.id, { stageId: stageNamed(pipeline, 'Won').id });
    expect(won).toMatchObject({ status: 'WON', probability: 100, lostReason: null });
    expect(won.closedAt).toBe(won.stageEnteredAt);
  });

  it('answers the deal unchanged and records nothing when it is already in that stage', async () => {
    const deal = await createDeal(app, tenant.org.id, { contactId });
    const before = await lastEventId();
    const same = await move(deal.id, { stageId: deal.stageId, automated: true });
    expect(same).toEqual(deal);
    expect(await moveEvents(deal.id, before)).toEqual([]);
  });

  it('keeps the contact of the deal in the events after a PATCH changed it', async () => {
    const other = (await createContact(app, tenant.org.id, { body: { firstName: 'Marta' } })).id;
    const deal = await createDeal(app, tenant.org.id, { contactId });
    expectStatus(
      await admin(app, 'PATCH', `${dealsPath(tenant.org.id)}/${deal.id}`, { contactId: other }),
      200,
    );
    const before = await lastEventId();
    await move(deal.id, { stageId: stageNamed(pipeline, 'Won').id });
    const events = await moveEvents(deal.id, before);
    expect(events.map((e) => (e.data.contact as { id: string; firstName: string }).firstName)).toEqual([
      'Marta',
      'Marta',
    ]);
  });
});

describe('moving a deal: errors', () => {
  it('names the failing field', async () => {
    const deal = await createDeal(app, tenant.org.id, { contactId });
    const second = await createPipeline(app, tenant.org.id, { name: 'Second' });
    const other = await createTenant(app);
    const theirs = await createPipeline(app, other.org.id);
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'body.stageId'],
      [{ stageId: 'nope' }, 'body.stageId'],
      [{ stageId: 'stg_0000000000000000000000' }, 'body.stageId'],
      [{ stageId: second.stages[0]?.id }, 'body.stageId'],
      [{ stageId: theirs.stages[0]?.id }, 'body.stageId'],
      [{ stageId: stageNamed(pipeline, 'Won').id, lostReason: 'Why' }, 'body.lostReason'],
      [{ stageId: stageNamed(pipeline, 'Lost').id, lostReason: '' }, 'body.lostReason'],
      [{ stageId: stageNamed(pipeline, 'Won').id, automated: 'yes' }, 'body.automated'],
      [{ stageId: stageNamed(pipeline, 'Won').id, status: 'WON' }, 'body.status'],
    ];
    const before = await lastEventId();
    for (const [body, field] of cases) {
      const error = expectError(await admin(app, 'POST', movePath(deal.id), body), 400, 'VALIDATION_ERROR');
      expect(fieldsOf(error), JSON.stringify(body)).toContain(field);
      expect(error.message).toContain(field);
    }
    expect(expectStatus(await admin(app, 'GET', `${dealsPath(tenant.org.id)}/${deal.id}`), 200).data).toEqual(
      deal,
    );
    expect(await moveEvents(deal.id, before)).toEqual([]);
  });

  it("answers 404 for an unknown deal, and for another organization's deal", async () => {
    const won = stageNamed(pipeline, 'Won').id;
    for (const id of ['nope', 'deal_0000000000000000000000'])
      expectError(await admin(app, 'POST', movePath(id), { stageId: won }), 404, 'NOT_FOUND');
    const other = await createTenant(app);
    const theirPipeline = await createPipeline(app, other.org.id);
    const theirs = await createDeal(app, other.org.id, {
      contactId: (await createContact(app, other.org.id)).id,
    });
    // Through our organization's path, with their own stage or ours: never reached.
    for (const stageId of [won, stageNamed(theirPipeline, 'Won').id])
      expectError(await admin(app, 'POST', movePath(theirs.id), { stageId }), 404, 'NOT_FOUND');
    const still = expectStatus(await admin(app, 'GET', `${dealsPath(other.org.id)}/${theirs.id}`), 200).data;
    expect(still).toEqual(theirs);
    expectError(
      await admin(app, 'POST', movePath(theirs.id, 'org_0000000000000000000000'), { stageId: won }),
      404,
      'NOT_FOUND',
    );
  });
});
