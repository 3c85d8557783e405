import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import {
  createAgent,
  createApiKey,
  createContact,
  createProperty,
  createTenant,
  type Tenant,
} from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import {
  createDeal,
  createPipeline,
  dealsPath,
  eventsOf,
  fieldsOf,
  stageNamed,
  type TestDeal,
  type TestPipeline,
} from './support.ts';

/** SPEC.md "Deal": every field, plus updatedAt and propertyId. */
const DEAL_FIELDS = [
  'id',
  'code',
  'title',
  'value',
  'currency',
  'probability',
  'status',
  'intent',
  'leadSource',
  'lostReason',
  'aiCreated',
  'agentId',
  'contactId',
  'pipelineId',
  'stageId',
  'stageName',
  'stageEnteredAt',
  'expectedCloseDate',
  'closedAt',
  'createdAt',
  'saasPlanId',
  'saasPlanName',
  'saasBillingPeriod',
  'saasMrrAmount',
  'trialStartedAt',
  'trialEndsAt',
  'updatedAt',
  'propertyId',
].sort();

type Deal = TestDeal;

let app: FastifyInstance;
let tenant: Tenant;
let pipeline: TestPipeline;
let contactId: string;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } });
  pipeline = await createPipeline(app, tenant.org.id);
  contactId = (await createContact(app, tenant.org.id)).id;
});
afterAll(async () => {
  await app.close();
});

describe('admin deals: happy path', () => {
  it('creates a deal with every field, a DL- code from the counter, and records deal.created', async () => {
    const { org } = await createTenant(app);
    const sales = await createPipeline(app, org.id);
    const contact = (await createContact(app, org.id)).id;
    const agent = await createAgent(app, org.id);
    const property = await createProperty(app, org.id, { publishedOnPortal: false });
    const visit = stageNamed(sales, 'Visit');
    const response = await admin(app, 'POST', dealsPath(org.id), {
      title: '  Two-bed flat in Soho ',
      contactId: contact,
      pipelineId: sales.id,
      stageId: visit.id,
      value: 325000.5,
      currency: 'EUR',
      agentId: agent.id,
      propertyId: property.id,
      intent: 'PURCHASE',
      leadSource: 'PORTAL',
      expectedCloseDate: '2026-12-15',
      aiCreated: true,
      saasPlanId: 'plan_pro',
      saasPlanName: 'Pro',
      saasBillingPeriod: 'MONTHLY',
      saasMrrAmount: 49.9,
      trialStartedAt: '2026-11-01T09:00:00+01:00',
      trialEndsAt: '2026-11-15T08:00:00.000Z',
    });
    const deal = expectStatus(response, 201).data as Deal;
    expect(Object.keys(deal).sort()).toEqual(DEAL_FIELDS);
    expect(deal).toMatchObject({
      code: 'DL-000001',
      title: 'Two-bed flat in Soho',
      value: 325000.5,
      currency: 'EUR',
      probability: 50,
      status: 'OPEN',
      intent: 'PURCHASE',
      leadSource: 'PORTAL',
      lostReason: null,
      aiCreated: true,
      agentId: agent.id,
      contactId: contact,
      propertyId: property.id,
      pipelineId: sales.id,
      stageId: visit.id,
      stageName: 'Visit',
      expectedCloseDate: '2026-12-15T00:00:00.000Z',
      closedAt: null,
      saasPlanId: 'plan_pro',
      saasPlanName: 'Pro',
      saasBillingPeriod: 'MONTHLY',
      saasMrrAmount: 49.9,
      trialStartedAt: '2026-11-01T08:00:00.000Z',
      trialEndsAt: '2026-11-15T08:00:00.000Z',
    });
    expect(deal.id).toMatch(/^deal_[0-9A-Za-z]{22}$/);
    expect(deal.stageEnteredAt).toBe(deal.createdAt);

    const second = await createDeal(app, org.id, { contactId: contact });
    expect(second.code).toBe('DL-000002');

    expect(expectStatus(await admin(app, 'GET', `${dealsPath(org.id)}/${deal.id}`), 200).data).toEqual(deal);
    const [created] = await eventsOf(org.id, ['deal.created']);
    expect(created?.data).toEqual({ deal });
    expect(created?.actor).toEqual({ kind: 'SYSTEM', userId: null });
    expect(() => eventCatalog.check('deal.created', created?.data)).not.toThrow();
  });

  it('defaults: the default pipeline, its first OPEN stage, intent PURCHASE, the contact source, the org currency, value 0', async () => {
    const deal = await createDeal(app, tenant.org.id, { contactId });
    expect(deal).toMatchObject({
      pipelineId: pipeline.id,
      stageId: stageNamed(pipeline, 'New').id,
      stageName: 'New',
      probability: 10,
      status: 'OPEN',
      intent: 'PURCHASE',
      leadSource: 'FINDER',
      currency: tenant.org.defaultCurrency,
      value: 0,
      agentId: null,
      propertyId: null,
      expectedCloseDate: null,
      aiCreated: false,
      saasPlanId: null,
      saasMrrAmount: null,
      trialStartedAt: null,
    });
  });

  it('starts in the first OPEN stage of the pipeline named, even when it is not the first stage', async () => {
    const { org } = await createTenant(app);
    await createPipeline(app, org.id);
    const other = await createPipeline(app, org.id, {
      name: 'Odd',
      stages: [
        { name: 'Archived', kind: 'LOST' },
        { name: 'Fresh', kind: 'OPEN' },
      ],
    });
    const contact = (await createContact(app, org.id)).id;
    const deal = await createDeal(app, org.id, { contactId: contact, pipelineId: other.id });
    expect(deal).toMatchObject({ pipelineId: other.id, stageName: 'Fresh', status: 'OPEN' });
    const byStage = await createDeal(app, org.id, {
      contactId: contact,
      stageId: stageNamed(other, 'Fresh').id,
    });
    expect(byStage.pipelineId).toBe(other.id);
  });

  it('creates a deal in a WON stage (probability 100, closedAt set) and in a LOST one with its reason', async () => {
    const won = await createDeal(app, tenant.org.id, { contactId, stageId: stageNamed(pipeline, 'Won').id });
    expect(won).toMatchObject({ status: 'WON', probability: 100, lostReason: null });
    expect(won.closedAt).toBe(won.createdAt);
    const lost = await createDeal(app, tenant.org.id, {
      contactId,
      stageId: stageNamed(pipeline, 'Lost').id,
      lostReason: 'Went with another agency',
    });
    expect(lost).toMatchObject({ status: 'LOST', probability: 0, lostReason: 'Went with another agency' });
    expect(lost.closedAt).toBe(lost.createdAt);
  });

  it('changes fields with a PATCH (null clears), records deal.updated naming the fields sent', async () => {
    const agent = await createAgent(app, tenant.org.id);
    const deal = await createDeal(app, tenant.org.id, {
      contactId,
      agentId: agent.id,
      expectedCloseDate: '2027-01-01',
    });
    const otherContact = (await createContact(app, tenant.org.id, { body: { firstName: 'Marta' } })).id;
    const response = await admin(app, 'PATCH', `${dealsPath(tenant.org.id)}/${deal.id}`, {
      title: 'Renamed',
      value: 10,
      agentId: null,
      expectedCloseDate: null,
      contactId: otherContact,
      intent: 'RENTAL',
      saasBillingPeriod: 'YEARLY',
    });
    const patched = expectStatus(response, 200).data as Deal;
    expect(patched).toMatchObject({
      ...deal,
      title: 'Renamed',
      value: 10,
      agentId: null,
      expectedCloseDate: null,
      contactId: otherContact,
      intent: 'RENTAL',
      saasBillingPeriod: 'YEARLY',
      updatedAt: expect.any(String),
    });
    expect(patched.stageEnteredAt).toBe(deal.stageEnteredAt);
    const updated = (await eventsOf(tenant.org.id, ['deal.updated'])).find(
      (e) => (e.data.deal as Deal).id === deal.id,
    );
    expect(updated?.data).toEqual({
      deal: patched,
      changes: ['agentId', 'contactId', 'expectedCloseDate', 'intent', 'saasBillingPeriod', 'title', 'value'],
    });
    expect(updated?.actor).toEqual({ kind: 'SYSTEM', userId: null });
    expect(() => eventCatalog.check('deal.updated', updated?.data)).not.toThrow();
  });

  it('edits the lostReason of a LOST deal', async () => {
    const lost = await createDeal(app, tenant.org.id, {
      contactId,
      stageId: stageNamed(pipeline, 'Lost').id,
    });
    expect(lost.lostReason).toBeNull();
    const patched = expectStatus(
      await admin(app, 'PATCH', `${dealsPath(tenant.org.id)}/${lost.id}`, { lostReason: 'Price' }),
      200,
    ).data;
    expect(patched.lostReason).toBe('Price');
  });

  it('deletes a deal and records deal.deleted', async () => {
    const deal = await createDeal(app, tenant.org.id, { contactId });
    const path = `${dealsPath(tenant.org.id)}/${deal.id}`;
    expect(expectStatus(await admin(app, 'DELETE', path), 200)).toEqual({
      data: { id: deal.id, deleted: true },
    });
    expectError(await admin(app, 'GET', path), 404, 'NOT_FOUND');
    expectError(await admin(app, 'DELETE', path), 404, 'NOT_FOUND');
    const deleted = (await eventsOf(tenant.org.id, ['deal.deleted'])).find(
      (e) => (e.data.deal as Deal).id === deal.id,
    );
    expect(deleted?.data).toEqual({
      deal: { id: deal.id, deletedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/) },
    });
    expect(() => eventCatalog.check('deal.deleted', deleted?.data)).not.toThrow();
  });
});

describe('admin deals: errors', () => {
  it('names the failing field of a create body', async () => {
    const other = await createTenant(app);
    const theirPipeline = await createPipeline(app, other.org.id);
    const theirContact = (await createContact(app, other.org.id)).id;
    const theirAgent = await createAgent(app, other.org.id);
    const theirProperty = await createProperty(app, other.org.id);
    const second = await createPipeline(app, tenant.org.id, { name: 'Second' });
    const base = { title: 'T', contactId };
    const cases: [Record<string, unknown>, string][] = [
      [{ contactId }, 'body.title'],
      [{ title: '  ', contactId }, 'body.title'],
      [{ title: 'T' }, 'body.contactId'],
      [{ ...base, contactId: theirContact }, 'body.contactId'],
      [{ ...base, contactId: 'ct_nope' }, 'body.contactId'],
      [{ ...base, agentId: theirAgent.id }, 'body.agentId'],
      [{ ...base, agentId: 'someone' }, 'body.agentId'],
      [{ ...base, propertyId: theirProperty.id }, 'body.propertyId'],
      [{ ...base, pipelineId: theirPipeline.id }, 'body.pipelineId'],
      [{ ...base, pipelineId: 'pl_0000000000000000000000' }, 'body.pipelineId'],
      [{ ...base, stageId: theirPipeline.stages[0]?.id }, 'body.stageId'],
      [{ ...base, pipelineId: second.id, stageId: stageNamed(pipeline, 'New').id }, 'body.stageId'],
      [{ ...base, lostReason: 'Why not' }, 'body.lostReason'],
      [{ ...base, value: -1 }, 'body.value'],
      [{ ...base, value: '100' }, 'body.value'],
      [{ ...base, currency: 'eur' }, 'body.currency'],
      [{ ...base, intent: 'BUY' }, 'body.intent'],
      [{ ...base, leadSource: 'BILLBOARD' }, 'body.leadSource'],
      [{ ...base, saasBillingPeriod: 'WEEKLY' }, 'body.saasBillingPeriod'],
      [{ ...base, expectedCloseDate: '2026-02-30' }, 'body.expectedCloseDate'],
      [{ ...base, expectedCloseDate: 'next week' }, 'body.expectedCloseDate'],
      [{ ...base, trialStartedAt: '2026-05-02', trialEndsAt: '2026-05-01' }, 'body.trialEndsAt'],
      [{ ...base, status: 'WON' }, 'body.status'],
      [{ ...base, probability: 80 }, 'body.probability'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(
        await admin(app, 'POST', dealsPath(tenant.org.id), body),
        400,
        'VALIDATION_ERROR',
      );
      expect(fieldsOf(error), JSON.stringify(body)).toContain(field);
    }
  });

  it('asks for a pipeline when the organization has none', async () => {
    const { org } = await createTenant(app);
    const contact = (await createContact(app, org.id)).id;
    const error = expectError(
      await admin(app, 'POST', dealsPath(org.id), { title: 'T', contactId: contact }),
      400,
      'VALIDATION_ERROR',
    );
    expect(fieldsOf(error)).toEqual(['body.pipelineId']);
  });

  it('names the failing field of a PATCH, and moves go through /move only', async () => {
    const deal = await createDeal(app, tenant.org.id, { contactId });
    const path = `${dealsPath(tenant.org.id)}/${deal.id}`;
    const other = await createTenant(app);
    const theirContact = (await createContact(app, other.org.id)).id;
    const cases: [Record<string, unknown>, string][] = [
      [{ stageId: stageNamed(pipeline, 'Won').id }, 'body.stageId'],
      [{ pipelineId: pipeline.id }, 'body.pipelineId'],
      [{ lostReason: 'x' }, 'body.lostReason'],
      [{ contactId: theirContact }, 'body.contactId'],
      [{ title: null }, 'body.title'],
      [{ trialEndsAt: '2020-01-01', trialStartedAt: '2021-01-01' }, 'body.trialEndsAt'],
      [{ code: 'DL-9' }, 'body.code'],
      [{}, 'body'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await admin(app, 'PATCH', path, body), 400, 'VALIDATION_ERROR');
      expect(fieldsOf(error), JSON.stringify(body)).toContain(field);
    }
    expect(expectStatus(await admin(app, 'GET', path), 200).data).toEqual(deal);
  });

  it('answers 404 for a malformed or unknown organization or deal', async () => {
    for (const orgId of ['nope', 'org_0000000000000000000000']) {
      expectError(await admin(app, 'GET', dealsPath(orgId)), 404, 'NOT_FOUND');
      expectError(await admin(app, 'POST', dealsPath(orgId), { title: 'T', contactId }), 404, 'NOT_FOUND');
    }
    for (const id of ['nope', 'deal_0000000000000000000000']) {
      const path = `${dealsPath(tenant.org.id)}/${id}`;
      expectError(await admin(app, 'GET', path), 404, 'NOT_FOUND');
      expectError(await admin(app, 'PATCH', path, { title: 'X' }), 404, 'NOT_FOUND');
      expectError(await admin(app, 'DELETE', path), 404, 'NOT_FOUND');
      expectError(await api(app, 'GET', `/v1/deals/${id}`, { key: tenant.secret.key }), 404, 'NOT_FOUND');
    }
  });
});

describe('GET /v1/deals: filters, sorts, paging', () => {
  let t: Tenant;
  let key: string;
  const byTitle = new Map<string, Deal>();
  let agent1: string;
  let contact1: string;
  let sales: TestPipeline;
  let other: TestPipeline;

  const titles = async (query: Record<string, string>) => {
    const body = expectStatus(await api(app, 'GET', '/v1/deals', { key, query }), 200);
    return (body.data as Deal[]).map((d) => d.title);
  };

  beforeAll(async () => {
    t = await createTenant(app);
    key = (
      await createApiKey(app, t.org.id, {
        type: 'read_only_secret',
        rateLimitPerMinute: 100_000,
      })
    ).key;
    sales = await createPipeline(app, t.org.id);
    other = await createPipeline(app, t.org.id, {
      name: 'Lettings',
      stages: [{ name: 'Enquiry', kind: 'OPEN' }],
    });
    agent1 = (await createAgent(app, t.org.id)).id;
    const agent2 = (await createAgent(app, t.org.id)).id;
    contact1 = (await createContact(app, t.org.id)).id;
    const contact2 = (await createContact(app, t.org.id, { body: { firstName: 'Marta' } })).id;
    const specs: [string, Record<string, unknown>][] = [
      [
        'd1',
        {
          stageId: stageNamed(sales, 'New').id,
          agentId: agent1,
          contactId: contact1,
          intent: 'PURCHASE',
          leadSource: 'PORTAL',
          value: 100000,
          expectedCloseDate: '2026-03-01',
        },
      ],
      [
        'd2',
        {
          stageId: stageNamed(sales, 'Visit').id,
          agentId: agent2,
          contactId: contact2,
          intent: 'RENTAL',
          leadSource: 'WEBSITE',
          value: 300000,
          expectedCloseDate: '2026-03-15T12:00:00Z',
        },
      ],
      [
        'd3',
        {
          stageId: stageNamed(sales, 'Won').id,
          agentId: agent1,
          contactId: contact2,
          intent: 'SALE',
          leadSource: 'REFERRAL',
          value: 200000,
        },
      ],
      [
        'd4',
        {
          pipelineId: other.id,
          contactId: contact1,
          intent: 'PURCHASE',
          leadSource: 'PORTAL',
          value: 50000,
          expectedCloseDate: '2026-04-01',
        },
      ],
      [
        'd5',
        {
          stageId: stageNamed(sales, 'Lost').id,
          agentId: agent2,
          contactId: contact1,
          intent: 'INVESTMENT',
          leadSource: 'PHONE',
          value: 75000,
          expectedCloseDate: '2026-02-01',
          lostReason: 'Price',
        },
      ],
    ];
    for (const [title, body] of specs)
      byTitle.set(title, await createDeal(app, t.org.id, { title, ...body }));
    // d2 enters Offer last; then d1 is edited last.
    expectStatus(
      await admin(app, 'POST', `${dealsPath(t.org.id)}/${byTitle.get('d2')?.id}/move`, {
        stageId: stageNamed(sales, 'Offer').id,
      }),
      200,
    );
    expectStatus(
      await admin(app, 'PATCH', `${dealsPath(t.org.id)}/${byTitle.get('d1')?.id}`, { value: 100001 }),
      200,
    );
  });

  it('lists newest first with paging meta, and a page past the end is empty with the true meta', async () => {
    const body = expectStatus(await api(app, 'GET', '/v1/deals', { key }), 200);
    expect(body.meta).toEqual({ total: 5, page: 1, pageSize: 20, totalPages: 1 });
    expect(body.data.map((d: Deal) => d.title)).toEqual(['d5', 'd4', 'd3', 'd2', 'd1']);
    for (const deal of body.data as Deal[]) expect(Object.keys(deal).sort()).toEqual(DEAL_FIELDS);
    const page2 = expectStatus(
      await api(app, 'GET', '/v1/deals', { key, query: { page: '2', pageSize: '2' } }),
      200,
    );
    expect(page2.meta).toEqual({ total: 5, page: 2, pageSize: 2, totalPages: 3 });
    expect(page2.data.map((d: Deal) => d.title)).toEqual(['d3', 'd2']);
    const past = expectStatus(
      await api(app, 'GET', '/v1/deals', { key, query: { page: '4', pageSize: '2' } }),
      200,
    );
    expect(past).toEqual({ data: [], meta: { total: 5, page: 4, pageSize: 2, totalPages: 3 } });
  });

  it('shows the same deal on GET /v1/deals/{id} as in the list and the back office', async () => {
    const d2 = byTitle.get('d2') as Deal;
    const got = expectStatus(await api(app, 'GET', `/v1/deals/${d2.id}`, { key }), 200).data;
    expect(got).toMatchObject({ id: d2.id, stageName: 'Offer', probability: 90 });
    expect(expectStatus(await admin(app, 'GET', `${dealsPath(t.org.id)}/${d2.id}`), 200).data).toEqual(got);
  });

  it('filters by pipeline, stage, status, agent, contact, intent and lead source', async () => {
    expect(await titles({ pipelineId: other.id })).toEqual(['d4']);
    expect(await titles({ pipelineId: sales.id })).toEqual(['d5', 'd3', 'd2', 'd1']);
    expect(await titles({ stageId: stageNamed(sales, 'Offer').id })).toEqual(['d2']);
    expect(await titles({ stageId: stageNamed(sales, 'Visit').id })).toEqual([]);
    expect(await titles({ status: 'OPEN' })).toEqual(['d4', 'd2', 'd1']);
    expect(await titles({ status: 'WON' })).toEqual(['d3']);
    expect(await titles({ status: 'LOST' })).toEqual(['d5']);
    expect(await titles({ agentId: agent1 })).toEqual(['d3', 'd1']);
    expect(await titles({ contactId: contact1 })).toEqual(['d5', 'd4', 'd1']);
    expect(await titles({ intent: 'RENTAL' })).toEqual(['d2']);
    expect(await titles({ leadSource: 'PORTAL' })).toEqual(['d4', 'd1']);
    expect(await titles({ leadSource: 'PORTAL', agentId: agent1 })).toEqual(['d1']);
    expect(await titles({ pipelineId: 'pl_unknown' })).toEqual([]);
  });

  it('filters by expected close date: after includes, before excludes, dates are midnight UTC', async () => {
    expect(await titles({ expectedCloseBefore: '2026-03-15T12:00:00Z' })).toEqual(['d5', 'd1']);
    expect(await titles({ expectedCloseBefore: '2026-03-15T12:00:00.001Z' })).toEqual(['d5', 'd2', 'd1']);
    expect(await titles({ expectedCloseAfter: '2026-03-01' })).toEqual(['d4', 'd2', 'd1']);
    expect(await titles({ expectedCloseAfter: '2026-03-01T00:00:00.001Z' })).toEqual(['d4', 'd2']);
    expect(await titles({ expectedCloseAfter: '2026-03-01', expectedCloseBefore: '2026-04-01' })).toEqual([
      'd2',
      'd1',
    ]);
    // The offset counts: 01:00+02:00 is still February in UTC, 01:00-02:00 is not.
    expect(await titles({ expectedCloseBefore: '2026-03-01T01:00:00+02:00' })).toEqual(['d5']);
    expect(await titles({ expectedCloseBefore: '2026-03-01T01:00:00-02:00' })).toEqual(['d5', 'd1']);
  });

  it('filters by creation time: after includes the instant, before excludes it', async () => {
    const d3 = byTitle.get('d3') as Deal;
    expect(await titles({ createdAfter: d3.createdAt as string })).toEqual(['d5', 'd4', 'd3']);
    expect(await titles({ createdBefore: d3.createdAt as string })).toEqual(['d2', 'd1']);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(await titles({ createdAfter: today, createdBefore: tomorrow })).toHaveLength(5);
    expect(await titles({ createdAfter: tomorrow })).toEqual([]);
  });

  it('sorts by createdAt, updatedAt, value, expectedCloseDate and stageEnteredAt, both ways, nulls last', async () => {
    expect(await titles({ sortBy: 'createdAt', sortOrder: 'asc' })).toEqual(['d1', 'd2', 'd3', 'd4', 'd5']);
    expect(await titles({ sortBy: 'updatedAt' })).toEqual(['d1', 'd2', 'd5', 'd4', 'd3']);
    expect(await titles({ sortBy: 'value' })).toEqual(['d2', 'd3', 'd1', 'd5', 'd4']);
    expect(await titles({ sortBy: 'value', sortOrder: 'asc' })).toEqual(['d4', 'd5', 'd1', 'd3', 'd2']);
    expect(await titles({ sortBy: 'expectedCloseDate' })).toEqual(['d5', 'd1', 'd2', 'd4', 'd3']);
    expect(await titles({ sortBy: 'expectedCloseDate', sortOrder: 'desc' })).toEqual([
      'd4',
      'd2',
      'd1',
      'd5',
      'd3',
    ]);
    expect(await titles({ sortBy: 'stageEnteredAt' })).toEqual(['d2', 'd5', 'd4', 'd3', 'd1']);
    expect(await titles({ sortBy: 'stageEnteredAt', sortOrder: 'asc' })).toEqual([
      'd1',
      'd3',
      'd4',
      'd5',
      'd2',
    ]);
  });

  it('lists the same on the back office route', async () => {
    const body = expectStatus(
      await admin(app, 'GET', `${dealsPath(t.org.id)}?status=OPEN&sortBy=value&sortOrder=asc`),
      200,
    );
    expect(body.data.map((d: Deal) => d.title)).toEqual(['d4', 'd1', 'd2']);
    expect(body.meta.total).toBe(3);
  });

  it('names the failing query parameter', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ status: 'MAYBE' }, 'query.status'],
      [{ intent: 'BUY' }, 'query.intent'],
      [{ leadSource: 'TV' }, 'query.leadSource'],
      [{ sortBy: 'title' }, 'query.sortBy'],
      [{ sortOrder: 'up' }, 'query.sortOrder'],
      [{ pageSize: '101' }, 'query.pageSize'],
      [{ page: '0' }, 'query.page'],
      [{ expectedCloseBefore: 'soon' }, 'query.expectedCloseBefore'],
      [{ expectedCloseBefore: '2026-02-30' }, 'query.expectedCloseBefore'],
      [{ createdAfter: '2026-13-01' }, 'query.createdAfter'],
      [{ expectedCloseAfter: '2026-05-01', expectedCloseBefore: '2026-05-01' }, 'query.expectedCloseBefore'],
      [{ createdAfter: '2026-05-02', createdBefore: '2026-05-01' }, 'query.createdBefore'],
      [{ color: 'red' }, 'query.color'],
    ];
    for (const [query, field] of cases) {
      const error = expectError(await api(app, 'GET', '/v1/deals', { key, query }), 400, 'VALIDATION_ERROR');
      expect(fieldsOf(error), JSON.stringify(query)).toContain(field);
      expect(error.message).toContain(field);
    }
  });
});

describe('deals: security', () => {
  it("never shows another organization's deals, on v1 or through the back office of another org", async () => {
    const a = await createTenant(app);
    const b = await createTenant(app);
    await createPipeline(app, b.org.id);
    const theirs = await createDeal(app, b.org.id, { contactId: (await createContact(app, b.org.id)).id });
    expectError(await api(app, 'GET', `/v1/deals/${theirs.id}`, { key: a.secret.key }), 404, 'NOT_FOUND');
    const listed = expectStatus(await api(app, 'GET', '/v1/deals', { key: a.secret.key }), 200);
    expect(listed).toEqual({ data: [], meta: { total: 0, page: 1, pageSize: 20, totalPages: 0 } });
    const path = `${dealsPath(a.org.id)}/${theirs.id}`;
    expectError(await admin(app, 'GET', path), 404, 'NOT_FOUND');
    expectError(await admin(app, 'PATCH', path, { title: 'Hijacked' }), 404, 'NOT_FOUND');
    expectError(await admin(app, 'DELETE', path), 404, 'NOT_FOUND');
    expect(
      expectStatus(await api(app, 'GET', `/v1/deals/${theirs.id}`, { key: b.secret.key }), 200).data,
    ).toEqual(theirs);
  });

  it('reads with secret and read-only secret keys; refuses publishable keys, keys without deals:read, and no key', async () => {
    const deal = await createDeal(app, tenant.org.id, { contactId });
    for (const key of [tenant.secret.key, tenant.readOnly.key]) {
      expectStatus(await api(app, 'GET', `/v1/deals/${deal.id}`, { key }), 200);
      expectStatus(await api(app, 'GET', '/v1/deals', { key }), 200);
    }
    for (const path of ['/v1/deals', `/v1/deals/${deal.id}`, '/v1/pipelines']) {
      expectError(await api(app, 'GET', path, { key: tenant.publishable.key }), 403, 'FORBIDDEN');
      expectError(await api(app, 'GET', path), 401, 'UNAUTHORIZED');
    }
    const narrow = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['contacts:read'] });
    const error = expectError(await api(app, 'GET', '/v1/deals', { key: narrow.key }), 403, 'FORBIDDEN');
    expect(error.message).toContain('deals:read');
  });

  it("keeps a test twin's deals apart: test keys see the twin's, live keys the live organization's", async () => {
    const t = await createTenant(app);
    const twin = t.org.testOrganizationId as string;
    await createPipeline(app, twin);
    const deal = await createDeal(app, twin, { contactId: (await createContact(app, twin)).id });
    const testKey = await createApiKey(app, t.org.id, { type: 'secret', mode: 'test' });
    expect(expectStatus(await api(app, 'GET', '/v1/deals', { key: testKey.key }), 200).data).toEqual([deal]);
    expect(expectStatus(await api(app, 'GET', '/v1/deals', { key: t.secret.key }), 200).data).toEqual([]);
    const [created] = await eventsOf(twin, ['deal.created']);
    expect(created?.data).toEqual({ deal });
  });
});
