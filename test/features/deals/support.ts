/** Set-up shared by the deal tests: pipelines and deals through the admin API, events from the database. */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { queryRows } from '../../../src/db/database.ts';
import { admin, expectStatus } from '../../helpers/http.ts';
import { testDatabase } from '../../helpers/test-app.ts';

export const pipelinesPath = (orgId: string) => `/admin/v1/organizations/${orgId}/pipelines`;
export const dealsPath = (orgId: string) => `/admin/v1/organizations/${orgId}/deals`;

export interface TestStage {
  id: string;
  name: string;
  kind: 'OPEN' | 'WON' | 'LOST';
  probability: number;
  position: number;
}
export interface TestPipeline {
  id: string;
  name: string;
  isDefault: boolean;
  stages: TestStage[];
  createdAt: string;
  updatedAt: string;
}

export type TestDeal = Record<string, unknown> & {
  id: string;
  title: string;
  stageId: string;
  status: string;
  stageEnteredAt: string;
};

/** A sales pipeline: three OPEN stages, then Won and Lost. */
export async function createPipeline(
  app: FastifyInstance,
  organizationId: string,
  overrides: Record<string, unknown> = {},
): Promise<TestPipeline> {
  const response = await admin(app, 'POST', pipelinesPath(organizationId), {
    name: 'Sales',
    stages: [
      { name: 'New', kind: 'OPEN' },
      { name: 'Visit', kind: 'OPEN' },
      { name: 'Offer', kind: 'OPEN' },
      { name: 'Won', kind: 'WON' },
      { name: 'Lost', kind: 'LOST' },
    ],
    ...overrides,
  });
  return expectStatus(response, 201).data;
}

export const stageNamed = (pipeline: TestPipeline, name: string) => {
  const stage = pipeline.stages.find((s) => s.name === name);
  if (!stage) throw new Error(`no stage ${name}`);
  return stage;
};

/** A deal through the admin API (201 asserted); returns the Deal. */
export async function createDeal(
  app: FastifyInstance,
  organizationId: string,
  body: Record<string, unknown>,
): Promise<TestDeal> {
  const response = await admin(app, 'POST', dealsPath(organizationId), { title: 'Flat in Soho', ...body });
  return expectStatus(response, 201).data;
}

export interface StoredEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
  actor: { kind: string; userId: string | null };
  created_at: string | Date;
}

/** Events of the organization of these types, oldest first. */
export async function eventsOf(organizationId: string, types: string[]): Promise<StoredEvent[]> {
  const db = await testDatabase();
  const rows = await db.systemTx((tx) =>
    queryRows<StoredEvent>(
      tx,
      sql`SELECT id, type, data, actor, created_at FROM events
          WHERE organization_id = ${organizationId} ORDER BY created_at, id`,
    ),
  );
  return rows.filter((row) => types.includes(row.type));
}

export const fieldsOf = (error: { details?: { field: string }[] }) =>
  (error.details ?? []).map((d) => d.field);
