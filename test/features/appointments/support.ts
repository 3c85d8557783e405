/** Helpers shared by the task and appointment tests. */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import { admin, expectStatus } from '../../helpers/http.ts';
import { testDatabase } from '../../helpers/test-app.ts';

export const DAY = 86_400_000;
export const MINUTE = 60_000;

export async function systemRows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const db = await testDatabase();
  return db.systemTx((tx) => queryRows<T>(tx, query));
}

/** The events of a type recorded for an organization, oldest first. */
export async function eventsOf(organizationId: string, type: string) {
  return systemRows<{ type: string; data: Record<string, unknown>; actor: unknown; livemode: boolean }>(
    sql`SELECT type, data, actor, livemode FROM events
        WHERE organization_id = ${organizationId} AND type = ${type} ORDER BY created_at, id`,
  );
}

/** The last event of a type, checked against its catalog schema. */
export async function lastEvent(organizationId: string, type: string) {
  const event = (await eventsOf(organizationId, type)).at(-1);
  expect(event, `no ${type} event`).toBeDefined();
  expect(() => eventCatalog.check(type, event?.data)).not.toThrow();
  return event as NonNullable<typeof event>;
}

/** An admin call on an organization's collection, with the status asserted. */
export async function adminOk(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  status: number,
  body?: unknown,
) {
  return expectStatus(await admin(app, method, url, body), status);
}

/** The wall-clock date (UTC) `days` from now, as YYYY-MM-DD. */
export const utcDate = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);
