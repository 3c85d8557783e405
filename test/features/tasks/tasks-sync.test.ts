// GET /v1/tasks in cursor mode (incremental sync, docs/decisions/0190-0194).
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { describeCursorMode, type CursorModeCase } from '../../helpers/cursor.ts';
import { createTenant } from '../../helpers/factories.ts';
import { admin, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let fixtures: CursorModeCase;
const FAST = { secret: { rateLimitPerMinute: 100_000 } };

beforeAll(async () => {
  app = await buildTestApp();
  const [tenant, other] = [await createTenant(app, FAST), await createTenant(app, FAST)];
  const tasks = `/admin/v1/organizations/${tenant.org.id}/tasks`;
  const ids: string[] = [];
  for (const [index, status] of ['PENDING', 'DONE', 'PENDING', 'DONE'].entries()) {
    ids.push(expectStatus(await admin(app, 'POST', tasks, { title: `Task ${index}`, status }), 201).data.id);
  }
  await admin(app, 'POST', `/admin/v1/organizations/${other.org.id}/tasks`, { title: 'Theirs' });
  fixtures = {
    app,
    path: '/v1/tasks',
    key: tenant.secret.key,
    otherKey: other.secret.key,
    ids,
    filter: { status: 'DONE' },
    filtered: [ids[1]!, ids[3]!],
    change: async (id) => {
      expectStatus(await admin(app, 'PATCH', `${tasks}/${id}`, { title: 'Changed' }), 200);
    },
    otherSort: 'dueAt',
  };
});
afterAll(async () => {
  await app.close();
});

describeCursorMode('GET /v1/tasks', 'task', () => fixtures);
