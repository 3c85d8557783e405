// GET /v1/appointments in cursor mode (incremental sync, docs/decisions/0190-0194).
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { describeCursorMode, type CursorModeCase } from '../../helpers/cursor.ts';
import { createAgent, createContact, createTenant } from '../../helpers/factories.ts';
import { admin, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let fixtures: CursorModeCase;
const FAST = { secret: { rateLimitPerMinute: 100_000 } };

beforeAll(async () => {
  app = await buildTestApp();
  const [tenant, other] = [await createTenant(app, FAST), await createTenant(app, FAST)];
  const appointments = `/admin/v1/organizations/${tenant.org.id}/appointments`;
  const agentId = (await createAgent(app, tenant.org.id)).id;
  const contactId = (
    await createContact(app, tenant.org.id, { body: { firstName: 'Marta', city: 'Nowhere' } })
  ).id;
  const ids: string[] = [];
  for (const [index, type] of ['SHOWING', 'VALUATION', 'SHOWING', 'VALUATION'].entries()) {
    const body = { agentId, contactId, type, startsAt: `2030-05-0${index + 1}T10:00:00Z` };
    ids.push(expectStatus(await admin(app, 'POST', appointments, body), 201).data.id);
  }
  fixtures = {
    app,
    path: '/v1/appointments',
    key: tenant.secret.key,
    otherKey: other.secret.key,
    ids,
    filter: { type: 'VALUATION' },
    filtered: [ids[1]!, ids[3]!],
    change: async (id) => {
      expectStatus(await admin(app, 'PATCH', `${appointments}/${id}`, { notes: 'Changed' }), 200);
    },
    otherSort: 'startsAt',
  };
});
afterAll(async () => {
  await app.close();
});

describeCursorMode('GET /v1/appointments', 'appointment', () => fixtures);
