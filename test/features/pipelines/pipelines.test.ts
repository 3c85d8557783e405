import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContact, createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import {
  createDeal,
  createPipeline,
  fieldsOf,
  pipelinesPath,
  stageNamed,
  type TestPipeline,
} from '../deals/support.ts';

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

describe('pipelines: happy path', () => {
  it('creates a pipeline with stages in order and default probabilities; the first one is the default', async () => {
    const { org } = await createTenant(app);
    const pipeline = await createPipeline(app, org.id, { isDefault: false });
    expect(pipeline.id).toMatch(/^pl_[0-9A-Za-z]{22}$/);
    expect(pipeline).toMatchObject({ name: 'Sales', isDefault: true });
    expect(
      pipeline.stages.map(({ name, kind, probability, position }) => ({ name, kind, probability, position })),
    ).toEqual([
      { name: 'New', kind: 'OPEN', probability: 10, position: 0 },
      { name: 'Visit', kind: 'OPEN', probability: 50, position: 1 },
      { name: 'Offer', kind: 'OPEN', probability: 90, position: 2 },
      { name: 'Won', kind: 'WON', probability: 100, position: 3 },
      { name: 'Lost', kind: 'LOST', probability: 0, position: 4 },
    ]);
    for (const stage of pipeline.stages) expect(stage.id).toMatch(/^stg_[0-9A-Za-z]{22}$/);

    const got = expectStatus(await admin(app, 'GET', `${pipelinesPath(org.id)}/${pipeline.id}`), 200).data;
    expect(got).toEqual(pipeline);
  });

  it('keeps given probabilities, gives a lone OPEN stage 50, and trims names', async () => {
    const { org } = await createTenant(app);
    const one = await createPipeline(app, org.id, {
      name: '  Lettings ',
      stages: [
        { name: ' Enquiry ', kind: 'OPEN' },
        { name: 'Signed', kind: 'WON', probability: 100 },
      ],
    });
    expect(one.name).toBe('Lettings');
    expect(one.stages.map((s) => [s.name, s.probability])).toEqual([
      ['Enquiry', 50],
      ['Signed', 100],
    ]);
    const two = await createPipeline(app, org.id, {
      name: 'Custom',
      stages: [
        { name: 'A', kind: 'OPEN', probability: 33 },
        { name: 'B', kind: 'OPEN' },
      ],
    });
    expect(two.stages.map((s) => s.probability)).toEqual([33, 90]);
    expect(two.isDefault).toBe(false);
  });

  it('moves the default flag to a pipeline created or patched with isDefault: true', async () => {
    const { org } = await createTenant(app);
    const first = await createPipeline(app, org.id, { name: 'First' });
    const second = await createPipeline(app, org.id, { name: 'Second', isDefault: true });
    expect(second.isDefault).toBe(true);
    const list = expectStatus(await admin(app, 'GET', pipelinesPath(org.id)), 200);
    expect(list.data.map((p: TestPipeline) => [p.name, p.isDefault])).toEqual([
      ['Second', true],
      ['First', false],
    ]);
    const patched = expectStatus(
      await admin(app, 'PATCH', `${pipelinesPath(org.id)}/${first.id}`, { isDefault: true }),
      200,
    ).data;
    expect(patched.isDefault).toBe(true);
    const again = expectStatus(await admin(app, 'GET', `${pipelinesPath(org.id)}/${second.id}`), 200).data;
    expect(again.isDefault).toBe(false);
  });

  it('lists pipelines on GET /v1/pipelines with a secret or read-only key, paged', async () => {
    const t = await createTenant(app);
    const first = await createPipeline(app, t.org.id, { name: 'First' });
    await createPipeline(app, t.org.id, { name: 'Second' });
    await createPipeline(app, t.org.id, { name: 'Third' });
    for (const key of [t.secret.key, t.readOnly.key]) {
      const body = expectStatus(await api(app, 'GET', '/v1/pipelines', { key }), 200);
      expect(body.meta).toEqual({ total: 3, page: 1, pageSize: 20, totalPages: 1 });
      expect(body.data.map((p: TestPipeline) => p.name)).toEqual(['First', 'Second', 'Third']);
      expect(body.data[0]).toEqual(first);
    }
    const page = expectStatus(
      await api(app, 'GET', '/v1/pipelines', { key: t.secret.key, query: { page: '2', pageSize: '2' } }),
      200,
    );
    expect(page.meta).toEqual({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(page.data.map((p: TestPipeline) => p.name)).toEqual(['Third']);
  });

  it('renames, reorders, re-kinds, adds and removes stages with a PATCH', async () => {
    const { org } = await createTenant(app);
    const pipeline = await createPipeline(app, org.id);
    const [newStage, visit, offer, won] = pipeline.stages as [TestStage, TestStage, TestStage, TestStage];
    const response = await admin(app, 'PATCH', `${pipelinesPath(org.id)}/${pipeline.id}`, {
      name: 'Sales 2027',
      stages: [
        { id: visit.id, name: 'Viewing', kind: 'OPEN' },
        { id: newStage.id, name: 'New', kind: 'OPEN', probability: 5 },
        { name: 'Negotiation', kind: 'OPEN' },
        { id: offer.id, name: 'Reserved', kind: 'WON' },
        { id: won.id, name: 'Closed', kind: 'WON' },
      ],
    });
    const patched = expectStatus(response, 200).data as TestPipeline;
    expect(patched.name).toBe('Sales 2027');
    expect(
      patched.stages.map(({ id, name, kind, probability, position }) => ({
        id,
        name,
        kind,
        probability,
        position,
      })),
    ).toEqual([
      { id: visit.id, name: 'Viewing', kind: 'OPEN', probability: 50, position: 0 },
      { id: newStage.id, name: 'New', kind: 'OPEN', probability: 5, position: 1 },
      { id: expect.stringMatching(/^stg_/), name: 'Negotiation', kind: 'OPEN', probability: 90, position: 2 },
      { id: offer.id, name: 'Reserved', kind: 'WON', probability: 100, position: 3 },
      { id: won.id, name: 'Closed', kind: 'WON', probability: 100, position: 4 },
    ]);
    expect(patched.updatedAt > pipeline.updatedAt).toBe(true);
  });

  it('deletes a pipeline without deals; the oldest remaining one becomes the default', async () => {
    const { org } = await createTenant(app);
    const first = await createPipeline(app, org.id, { name: 'First' });
    const second = await createPipeline(app, org.id, { name: 'Second' });
    await createPipeline(app, org.id, { name: 'Third' });
    const deleted = expectStatus(await admin(app, 'DELETE', `${pipelinesPath(org.id)}/${first.id}`), 200);
    expect(deleted).toEqual({ data: { id: first.id, deleted: true } });
    expectError(await admin(app, 'GET', `${pipelinesPath(org.id)}/${first.id}`), 404, 'NOT_FOUND');
    const now = expectStatus(await admin(app, 'GET', `${pipelinesPath(org.id)}/${second.id}`), 200).data;
    expect(now.isDefault).toBe(true);
  });
});

type TestStage = TestPipeline['stages'][number];

describe('pipelines: errors', () => {
  it('refuses a pipeline without an OPEN stage, a blank or repeated name, and a WON/LOST probability other than 100/0', async () => {
    const path = pipelinesPath(tenant.org.id);
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'X', stages: [{ name: 'Won', kind: 'WON' }] }, 'body.stages'],
      [{ name: 'X', stages: [] }, 'body.stages'],
      [{ name: ' ', stages: [{ name: 'A', kind: 'OPEN' }] }, 'body.name'],
      [{ name: 'X', stages: [{ name: ' ', kind: 'OPEN' }] }, 'body.stages[0].name'],
      [
        {
          name: 'X',
          stages: [
            { name: 'Open', kind: 'OPEN' },
            { name: 'open', kind: 'OPEN' },
          ],
        },
        'body.stages[1].name',
      ],
      [
        {
          name: 'X',
          stages: [
            { name: 'A', kind: 'OPEN' },
            { name: 'W', kind: 'WON', probability: 90 },
          ],
        },
        'body.stages[1].probability',
      ],
      [
        {
          name: 'X',
          stages: [
            { name: 'A', kind: 'OPEN' },
            { name: 'L', kind: 'LOST', probability: 10 },
          ],
        },
        'body.stages[1].probability',
      ],
      [{ name: 'X', stages: [{ name: 'A', kind: 'MAYBE' }] }, 'body.stages[0].kind'],
      [{ name: 'X', stages: [{ name: 'A', kind: 'OPEN', probability: 101 }] }, 'body.stages[0].probability'],
      [{ name: 'X', stages: [{ name: 'A', kind: 'OPEN' }], color: 'red' }, 'body.color'],
      [{ stages: [{ name: 'A', kind: 'OPEN' }] }, 'body.name'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await admin(app, 'POST', path, body), 400, 'VALIDATION_ERROR');
      expect(fieldsOf(error), JSON.stringify(body)).toContain(field);
      expect(error.message).toContain(field);
    }
  });

  it('refuses PATCH stage ids of another pipeline or repeated, and isDefault: false on the default', async () => {
    const { org } = await createTenant(app);
    const mine = await createPipeline(app, org.id);
    const other = await createPipeline(app, org.id, { name: 'Other' });
    const path = `${pipelinesPath(org.id)}/${mine.id}`;
    const foreign = expectError(
      await admin(app, 'PATCH', path, { stages: [{ id: other.stages[0]?.id, name: 'A', kind: 'OPEN' }] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(fieldsOf(foreign)).toEqual(['body.stages[0].id']);
    const id = mine.stages[0]?.id;
    const repeated = expectError(
      await admin(app, 'PATCH', path, {
        stages: [
          { id, name: 'A', kind: 'OPEN' },
          { id, name: 'B', kind: 'OPEN' },
        ],
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(fieldsOf(repeated)).toEqual(['body.stages[1].id']);
    const undefault = expectError(
      await admin(app, 'PATCH', path, { isDefault: false }),
      400,
      'VALIDATION_ERROR',
    );
    expect(fieldsOf(undefault)).toEqual(['body.isDefault']);
    expectError(await admin(app, 'PATCH', path, {}), 400, 'VALIDATION_ERROR');
    // Nothing changed.
    expect(expectStatus(await admin(app, 'GET', path), 200).data).toEqual(mine);
  });

  it('refuses (409) removing or re-kinding a stage that holds deals, and deleting a pipeline with deals', async () => {
    const { org } = await createTenant(app);
    const pipeline = await createPipeline(app, org.id);
    const contactId = (await createContact(app, org.id)).id;
    const visit = stageNamed(pipeline, 'Visit');
    await createDeal(app, org.id, { contactId, stageId: visit.id });
    await createDeal(app, org.id, { contactId, stageId: visit.id });
    const path = `${pipelinesPath(org.id)}/${pipeline.id}`;
    const keep = pipeline.stages
      .filter((s) => s.id !== visit.id)
      .map(({ id, name, kind }) => ({ id, name, kind }));

    const removed = expectError(await admin(app, 'PATCH', path, { stages: keep }), 409, 'DUPLICATE');
    expect(removed.message).toContain('2 deal(s)');
    expect(removed.message).toContain(visit.id);
    expect((removed as Record<string, unknown>).dealCount).toBe(2);

    const rekinded = expectError(
      await admin(app, 'PATCH', path, {
        stages: pipeline.stages.map(({ id, name, kind }) => ({
          id,
          name,
          kind: id === visit.id ? 'LOST' : kind,
        })),
      }),
      409,
      'DUPLICATE',
    );
    expect(rekinded.message).toContain('2 deal(s)');

    const deleting = expectError(await admin(app, 'DELETE', path), 409, 'DUPLICATE');
    expect(deleting.message).toContain('2 deal(s)');
    expect(expectStatus(await admin(app, 'GET', path), 200).data).toEqual(pipeline);

    // Renaming the stage that holds deals is fine, and the deals show the new name.
    const renamed = expectStatus(
      await admin(app, 'PATCH', path, {
        stages: pipeline.stages.map(({ id, name, kind }) => ({
          id,
          name: id === visit.id ? 'Viewing' : name,
          kind,
        })),
      }),
      200,
    ).data as TestPipeline;
    expect(stageNamed(renamed, 'Viewing').id).toBe(visit.id);
    const deals = expectStatus(await admin(app, 'GET', `/admin/v1/organizations/${org.id}/deals`), 200)
      .data as { stageName: string }[];
    expect(deals.map((d) => d.stageName)).toEqual(['Viewing', 'Viewing']);
  });

  it('answers 404 for a malformed or unknown organization or pipeline', async () => {
    for (const orgId of ['nope', 'org_0000000000000000000000']) {
      expectError(await admin(app, 'GET', pipelinesPath(orgId)), 404, 'NOT_FOUND');
      expectError(
        await admin(app, 'POST', pipelinesPath(orgId), { name: 'X', stages: [{ name: 'A', kind: 'OPEN' }] }),
        404,
        'NOT_FOUND',
      );
    }
    for (const id of ['nope', 'pl_0000000000000000000000']) {
      const path = `${pipelinesPath(tenant.org.id)}/${id}`;
      expectError(await admin(app, 'GET', path), 404, 'NOT_FOUND');
      expectError(await admin(app, 'PATCH', path, { name: 'X' }), 404, 'NOT_FOUND');
      expectError(await admin(app, 'DELETE', path), 404, 'NOT_FOUND');
    }
  });
});

describe('pipelines: security', () => {
  it("never shows or touches another organization's pipelines", async () => {
    const a = await createTenant(app);
    const b = await createTenant(app);
    const theirs = await createPipeline(app, b.org.id, { name: 'Theirs' });
    await createPipeline(app, a.org.id, { name: 'Mine' });
    const listed = expectStatus(await api(app, 'GET', '/v1/pipelines', { key: a.secret.key }), 200);
    expect(listed.data.map((p: TestPipeline) => p.name)).toEqual(['Mine']);
    const path = `${pipelinesPath(a.org.id)}/${theirs.id}`;
    expectError(await admin(app, 'GET', path), 404, 'NOT_FOUND');
    expectError(await admin(app, 'PATCH', path, { name: 'Hijacked' }), 404, 'NOT_FOUND');
    expectError(await admin(app, 'DELETE', path), 404, 'NOT_FOUND');
    expect(
      expectStatus(await admin(app, 'GET', `${pipelinesPath(b.org.id)}/${theirs.id}`), 200).data,
    ).toEqual(theirs);
  });

  it('refuses GET /v1/pipelines to a publishable key and to a key without deals:read', async () => {
    expectError(await api(app, 'GET', '/v1/pipelines', { key: tenant.publishable.key }), 403, 'FORBIDDEN');
    expectError(await api(app, 'GET', '/v1/pipelines'), 401, 'UNAUTHORIZED');
  });
});
