import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { createApiKey, createContact, createTenant, type Tenant } from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { createPipeline, fieldsOf, stageNamed, type TestPipeline } from './support.ts';

interface Logged {
  type: string;
  sequence: number;
  actor: { kind: string; userId: string | null };
  data: Record<string, Record<string, unknown>>;
}

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

const key = () => tenant.secret.key;

async function create(
  body: Record<string, unknown> = {},
  options: { key?: string; headers?: Record<string, string> } = {},
) {
  return api(app, 'POST', '/v1/deals', {
    key: options.key ?? key(),
    headers: options.headers,
    body: { title: 'Flat in Soho', contactId, ...body },
  });
}

async function head(): Promise<number> {
  const page = expectStatus(
    await api(app, 'GET', '/v1/event-log', { key: key(), query: { order: 'desc', pageSize: '1' } }),
    200,
  );
  return (page.data[0] as Logged | undefined)?.sequence ?? 0;
}

async function eventsSince(after: number): Promise<Logged[]> {
  const page = expectStatus(
    await api(app, 'GET', '/v1/event-log', { key: key(), query: { after: String(after), type: 'deal.*' } }),
    200,
  );
  return page.data as Logged[];
}

describe('POST /v1/deals, PATCH and DELETE /v1/deals/{id}', () => {
  it('creates, changes and deletes a deal, each with its event and the key as actor', async () => {
    const start = await head();
    const deal = expectStatus(await create({ value: 250_000 }), 201).data;
    expect(deal).toMatchObject({ title: 'Flat in Soho', status: 'OPEN', contactId, pipelineId: pipeline.id });
    expect(deal.stageId).toBe(stageNamed(pipeline, 'New').id);
    const changed = expectStatus(
      await api(app, 'PATCH', `/v1/deals/${deal.id}`, {
        key: key(),
        body: { value: 260_000, title: 'Loft' },
      }),
      200,
    ).data;
    expect(changed).toMatchObject({ id: deal.id, value: 260_000, title: 'Loft' });
    expect(expectStatus(await api(app, 'GET', `/v1/deals/${deal.id}`, { key: key() }), 200).data).toEqual(
      changed,
    );
    expect(expectStatus(await api(app, 'DELETE', `/v1/deals/${deal.id}`, { key: key() }), 200).data).toEqual({
      id: deal.id,
      deleted: true,
    });
    expectError(await api(app, 'GET', `/v1/deals/${deal.id}`, { key: key() }), 404, 'NOT_FOUND');
    const events = await eventsSince(start);
    expect(events.map((e) => e.type)).toEqual(['deal.created', 'deal.updated', 'deal.deleted']);
    expect(events.every((e) => e.actor.kind === 'API')).toBe(true);
    expect(events[1]?.data.changes).toEqual(['title', 'value']);
    expect(events[2]?.data.deal).toEqual({ id: deal.id, deletedAt: expect.any(String) });
  });

  it('names the field of a bad body, and refuses a stage change through PATCH', async () => {
    expect(fieldsOf(expectError(await create({ title: '' }), 400, 'VALIDATION_ERROR'))).toContain(
      'body.title',
    );
    expect(fieldsOf(expectError(await create({ contactId: 'ct_nope' }), 400, 'VALIDATION_ERROR'))).toContain(
      'body.contactId',
    );
    const deal = expectStatus(await create(), 201).data;
    const response = await api(app, 'PATCH', `/v1/deals/${deal.id}`, {
      key: key(),
      body: { stageId: stageNamed(pipeline, 'Won').id },
    });
    const error = expectError(response, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(error)).toEqual(['body.stageId']);
    // Not a field of a PATCH (nor of its documented schema), refused with where to go instead.
    expect(error.message).toContain('move the deal (POST /v1/deals/{id}/move)');
  });

  it('replays a create under the same Idempotency-Key: one deal, the same answer', async () => {
    const headers = { 'Idempotency-Key': `deal-${Date.now()}` };
    const first = await create({ title: 'Once' }, { headers });
    const second = await create({ title: 'Once' }, { headers });
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(expectStatus(first, 201));
  });
});

describe('POST /v1/deals/{id}/move', () => {
  it('moves into WON: status, probability and closedAt follow, with deal.stage_changed and deal.won', async () => {
    const deal = expectStatus(await create(), 201).data;
    const start = await head();
    const won = stageNamed(pipeline, 'Won');
    const moved = expectStatus(
      await api(app, 'POST', `/v1/deals/${deal.id}/move`, { key: key(), body: { stageId: won.id } }),
      200,
    ).data;
    expect(moved).toMatchObject({ stageId: won.id, status: 'WON', probability: 100 });
    expect(moved.closedAt).toEqual(expect.any(String));
    const events = await eventsSince(start);
    expect(events.map((e) => e.type)).toEqual(['deal.stage_changed', 'deal.won']);
    expect(events[1]?.actor.kind).toBe('API');
    expect(events[1]?.data).toMatchObject({
      deal: { id: deal.id, status: 'WON' },
      contact: { id: contactId },
      transition: { toStageId: won.id, toStageName: 'Won', fromStageName: 'New' },
    });
  });

  it('requires lostReason into LOST, refuses it elsewhere, and records deal.lost with it', async () => {
    const deal = expectStatus(await create(), 201).data;
    const lost = stageNamed(pipeline, 'Lost');
    const move = (body: Record<string, unknown>) =>
      api(app, 'POST', `/v1/deals/${deal.id}/move`, { key: key(), body });
    expect(fieldsOf(expectError(await move({ stageId: lost.id }), 400, 'VALIDATION_ERROR'))).toEqual([
      'body.lostReason',
    ]);
    expect(
      fieldsOf(
        expectError(
          await move({ stageId: stageNamed(pipeline, 'Offer').id, lostReason: 'x' }),
          400,
          'VALIDATION_ERROR',
        ),
      ),
    ).toEqual(['body.lostReason']);
    const start = await head();
    const moved = expectStatus(await move({ stageId: lost.id, lostReason: 'Bought elsewhere' }), 200).data;
    expect(moved).toMatchObject({ status: 'LOST', probability: 0, lostReason: 'Bought elsewhere' });
    const events = await eventsSince(start);
    expect(events.map((e) => e.type)).toEqual(['deal.stage_changed', 'deal.lost']);
    expect(events[1]?.data.transition).toMatchObject({ lostReason: 'Bought elsewhere' });
  });
});

describe('who may write deals', () => {
  it('refuses a key without deals:write (403), publishable and read-only keys, and another organization’s ids (404)', async () => {
    const deal = expectStatus(await create(), 201).data;
    const readOnlyScopes = SCOPES.filter((scope) => scope !== 'deals:write');
    const noWrite = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: readOnlyScopes,
      accessLevel: 3,
    });
    expectError(await create({}, { key: noWrite.key }), 403, 'FORBIDDEN');
    const level2 = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: [...SCOPES],
      accessLevel: 2,
    });
    expectError(await create({}, { key: level2.key }), 403, 'FORBIDDEN');
    expectError(await create({}, { key: tenant.publishable.key }), 403, 'FORBIDDEN');
    expectError(await create({}, { key: tenant.readOnly.key }), 403, 'FORBIDDEN');
    const stranger = await createTenant(app);
    for (const [method, url, body] of [
      ['PATCH', `/v1/deals/${deal.id}`, { title: 'Mine now' }],
      ['DELETE', `/v1/deals/${deal.id}`, undefined],
      ['POST', `/v1/deals/${deal.id}/move`, { stageId: stageNamed(pipeline, 'Won').id }],
    ] as const)
      expectError(await api(app, method, url, { key: stranger.secret.key, body }), 404, 'NOT_FOUND');
    expect(expectStatus(await api(app, 'GET', `/v1/deals/${deal.id}`, { key: key() }), 200).data.title).toBe(
      'Flat in Soho',
    );
  });
});
