/** Helpers shared by the task and appointment tests. */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import { busyPublishableKey } from '../../helpers/factories.ts';
import { admin, api, expectStatus } from '../../helpers/http.ts';
import { testDatabase } from '../../helpers/test-app.ts';

export const DAY = 86_400_000;
export const MINUTE = 60_000;

export async function systemRows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const db = await testDatabase();
  return db.systemTx((tx) => queryRows<T>(tx, query));
}

/** A publishable key with raised limits (these tests send many form posts). */
export async function formKey(app: FastifyInstance, organizationId: string): Promise<string> {
  return await busyPublishableKey(app, organizationId);
}

// Seven digits after +34 61: a random start per file, then one up per contact (never a repeat in a run).
let phoneSequence = Math.floor(Math.random() * 9_000_000);

/** A contact of the organization, made the way a visitor makes one: through the finder form. */
export async function createContact(
  app: FastifyInstance,
  key: string,
  firstName = 'Marta',
): Promise<{ id: string; phone: string }> {
  phoneSequence += 1;
  const phone = `+3461${String(phoneSequence % 10_000_000).padStart(7, '0')}`;
  const result = expectStatus(
    await api(app, 'POST', '/v1/finder', { key, body: { firstName, phone, city: 'Nowhere' } }),
    201,
  );
  return { id: result.data.contact.id, phone };
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
