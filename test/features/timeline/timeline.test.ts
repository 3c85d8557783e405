import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { createApiKey, createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { createPipeline, stageNamed, type TestPipeline } from '../deals/support.ts';

let app: FastifyInstance;
let tenant: Tenant;
let pipeline: TestPipeline;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } });
  pipeline = await createPipeline(app, tenant.org.id);
});
afterAll(async () => {
  await app.close();
});

const key = () => tenant.secret.key;
const timeline = (contactId: string, options: { key?: string; query?: Record<string, string> } = {}) =>
  api(app, 'GET', `/v1/contacts/${contactId}/timeline`, { key: options.key ?? key(), query: options.query });

describe('GET /v1/contacts/{id}/timeline', () => {
  it('merges notes, portal forms, deals and usage days, newest first, paged', async () => {
    const phone = '+34 611 909 090';
    const lead = expectStatus(
      await api(app, 'POST', '/v1/leads', {
        key: tenant.publishable.key,
        body: { firstName: 'Lucía', phone, message: 'Is it available?', utmSource: 'newsletter' },
      }),
      201,
    ).data;
    void lead;
    const found = expectStatus(
      await api(app, 'GET', '/v1/contacts', { key: key(), query: { q: '611 909 090' } }),
      200,
    );
    const contactId = found.data[0].id as string;
    const note = expectStatus(
      await api(app, 'POST', `/v1/contacts/${contactId}/notes`, {
        key: key(),
        body: { body: 'Call after 18:00' },
      }),
      201,
    ).data;
    const deal = expectStatus(
      await api(app, 'POST', '/v1/deals', { key: key(), body: { title: 'Flat', contactId } }),
      201,
    ).data;
    expectStatus(
      await api(app, 'POST', '/v1/usage/events', {
        key: key(),
        body: { contactId, name: 'search', occurredAt: '2026-01-05T10:00:00Z' },
      }),
      200,
    );
    const page = expectStatus(await timeline(contactId), 200);
    expect(page.data.map((item: { type: string }) => item.type)).toEqual(['DEAL', 'NOTE', 'LEAD', 'USAGE']);
    expect(page.data[0]).toMatchObject({ id: deal.id, data: { title: 'Flat', status: 'OPEN' } });
    expect(page.data[1]).toMatchObject({ id: note.id, data: { body: 'Call after 18:00' } });
    expect(page.data[2]).toMatchObject({
      type: 'LEAD',
      data: { message: 'Is it available?', utmSource: 'newsletter', outcome: 'CREATED', matchedOn: null },
    });
    expect(page.data[3]).toMatchObject({
      id: 'usage_2026-01-05',
      at: '2026-01-05T00:00:00.000Z',
      data: { day: '2026-01-05', events: 1 },
    });
    expect(page.meta).toEqual({ total: 4, page: 1, pageSize: 20, totalPages: 1 });
    const second = expectStatus(await timeline(contactId, { query: { pageSize: '2', page: '2' } }), 200);
    expect(second.data.map((item: { type: string }) => item.type)).toEqual(['LEAD', 'USAGE']);
  });

  it('shows messages only to a key with conversations:read, and 404 for another organization’s contact', async () => {
    const contactId = expectStatus(
      await api(app, 'POST', '/v1/contacts', { key: key(), body: { firstName: 'Quiet' } }),
      201,
    ).data.id;
    const noConversations = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: SCOPES.filter((scope) => scope !== 'conversations:read'),
    });
    expectStatus(await timeline(contactId, { key: noConversations.key }), 200);
    const reader = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['deals:read'] });
    expectError(await timeline(contactId, { key: reader.key }), 403, 'FORBIDDEN');
    expectError(await timeline(contactId, { key: tenant.publishable.key }), 403, 'FORBIDDEN');
    const stranger = await createTenant(app);
    expectError(await timeline(contactId, { key: stranger.secret.key }), 404, 'NOT_FOUND');
    expectError(await timeline('ct_nope'), 404, 'NOT_FOUND');
  });

  it('shows every stage move of the contact’s deals (v1 and back office) as DEAL_MOVE, newest first', async () => {
    const contactId = expectStatus(
      await api(app, 'POST', '/v1/contacts', { key: key(), body: { firstName: 'Mover' } }),
      201,
    ).data.id as string;
    const deal = expectStatus(
      await api(app, 'POST', '/v1/deals', {
        key: key(),
        body: { title: 'House', contactId, pipelineId: pipeline.id, stageId: stageNamed(pipeline, 'New').id },
      }),
      201,
    ).data;
    const move = (body: Record<string, unknown>) =>
      api(app, 'POST', `/v1/deals/${deal.id}/move`, { key: key(), body });
    expectStatus(await move({ stageId: stageNamed(pipeline, 'Visit').id }), 200);
    // Moving to the stage the deal is in is no move, and a refused move is none either: nothing is kept.
    expectStatus(await move({ stageId: stageNamed(pipeline, 'Visit').id }), 200);
    expectError(await move({ stageId: stageNamed(pipeline, 'Lost').id }), 400, 'VALIDATION_ERROR');
    expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${tenant.org.id}/deals/${deal.id}/move`, {
        stageId: stageNamed(pipeline, 'Lost').id,
        lostReason: 'Bought elsewhere',
        automated: true,
      }),
      200,
    );

    const page = expectStatus(await timeline(contactId), 200);
    expect(page.data.map((item: { type: string }) => item.type)).toEqual(['DEAL_MOVE', 'DEAL_MOVE', 'DEAL']);
    expect(page.meta.total).toBe(3);
    const [lost, visit] = page.data;
    expect(lost).toStrictEqual({
      type: 'DEAL_MOVE',
      id: expect.stringMatching(/^dsc_/),
      at: expect.any(String),
      data: {
        dealId: deal.id,
        dealTitle: 'House',
        pipelineId: pipeline.id,
        fromStageId: stageNamed(pipeline, 'Visit').id,
        fromStageName: 'Visit',
        toStageId: stageNamed(pipeline, 'Lost').id,
        toStageName: 'Lost',
        status: 'LOST',
        lostReason: 'Bought elsewhere',
        automated: true,
        actorKind: 'AUTOMATION',
      },
    });
    expect(visit.data).toMatchObject({
      fromStageName: 'New',
      toStageName: 'Visit',
      status: 'OPEN',
      lostReason: null,
      automated: false,
      actorKind: 'API',
    });
    // Another contact sees none of these moves.
    const other = expectStatus(
      await api(app, 'POST', '/v1/contacts', { key: key(), body: { firstName: 'Other' } }),
      201,
    ).data.id as string;
    expect(expectStatus(await timeline(other), 200).data).toEqual([]);
  });
});
