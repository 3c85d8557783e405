// GET /v1/deals in cursor mode (incremental sync, docs/decisions/0190-0194).
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { describeCursorMode, type CursorModeCase } from '../../helpers/cursor.ts';
import { createContact, createTenant } from '../../helpers/factories.ts';
import { admin, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { createDeal, createPipeline, dealsPath, stageNamed } from './support.ts';

let app: FastifyInstance;
let fixtures: CursorModeCase;
const FAST = { secret: { rateLimitPerMinute: 100_000 } };

beforeAll(async () => {
  app = await buildTestApp();
  const [tenant, other] = [await createTenant(app, FAST), await createTenant(app, FAST)];
  const contactId = (await createContact(app, tenant.org.id)).id;
  const pipeline = await createPipeline(app, tenant.org.id);
  const ids: string[] = [];
  for (const stage of ['New', 'Visit', 'New', 'Visit']) {
    const deal = await createDeal(app, tenant.org.id, { contactId, stageId: stageNamed(pipeline, stage).id });
    ids.push(deal.id);
  }
  fixtures = {
    app,
    path: '/v1/deals',
    key: tenant.secret.key,
    otherKey: other.secret.key,
    ids,
    filter: { stageId: stageNamed(pipeline, 'Visit').id },
    filtered: [ids[1]!, ids[3]!],
    change: async (id) => {
      expectStatus(await admin(app, 'PATCH', `${dealsPath(tenant.org.id)}/${id}`, { title: 'Changed' }), 200);
    },
    otherSort: 'value',
  };
});
afterAll(async () => {
  await app.close();
});

describeCursorMode('GET /v1/deals', 'deal', () => fixtures);
