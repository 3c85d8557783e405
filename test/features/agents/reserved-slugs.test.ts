/**
 * Reserved booking slugs (decision 0252): a word of a static route under /v1/booking/ (`agents`,
 * `manage`) is no agent's slug, on creation and on every change (admin and v1), a 400 naming
 * body.bookingSlug; the list covers every static route registered there.
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESERVED_BOOKING_SLUGS } from '../../../src/features/agents/index.ts';
import { createAgent, createTenant, FAST, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;

/** The admin API's agents of the tenant, or one of them. */
const adminPath = (agentId?: string) =>
  `/admin/v1/organizations/${tenant.org.id}/agents${agentId ? `/${agentId}` : ''}`;

/** The 400 of a reserved slug: names body.bookingSlug and lists the reserved words. */
function expectReserved(response: Parameters<typeof expectError>[0], slug: string) {
  const error = expectError(response, 400, 'VALIDATION_ERROR');
  expect(
    error.details?.map((d: { field: string }) => d.field),
    error.message,
  ).toEqual(['body.bookingSlug']);
  expect(error.message).toContain(`body.bookingSlug is reserved: "${slug}"`);
  expect(error.message).toContain(`reserved: ${RESERVED_BOOKING_SLUGS.join(', ')}`);
}

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: FAST });
});
afterAll(async () => {
  await app.close();
});

describe('reserved booking slugs', () => {
  it('are the words of the static routes under /v1/booking/, at least agents and manage', () => {
    expect(RESERVED_BOOKING_SLUGS).toEqual(expect.arrayContaining(['agents', 'manage']));
    const statics = new Set(
      app.routeTable
        .map((route) => route.url.split('/'))
        .filter((parts) => parts[1] === 'v1' && parts[2] === 'booking' && parts.length > 3)
        .map((parts) => parts[3] as string)
        .filter((segment) => !segment.startsWith(':')),
    );
    expect([...statics].sort()).toEqual(['agents', 'manage']);
    // A new static route there must reserve its word too.
    for (const word of statics) expect(RESERVED_BOOKING_SLUGS).toContain(word);
  });

  it('400 on creation with each of them, naming body.bookingSlug', async () => {
    for (const slug of RESERVED_BOOKING_SLUGS) {
      expectReserved(await admin(app, 'POST', adminPath(), { firstName: 'Rosa', bookingSlug: slug }), slug);
    }
    // Upper case is no way around it: slugs are lowercase (the pattern refuses the rest).
    const upper = expectError(
      await admin(app, 'POST', adminPath(), { firstName: 'Rosa', bookingSlug: 'MANAGE' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(upper.message).toContain('body.bookingSlug');
  });

  it('400 on every change: the admin PATCH and PATCH /v1/agents/{id}/booking', async () => {
    const agent = await createAgent(app, tenant.org.id, { bookingSlug: 'rosa-vidal' });
    for (const slug of RESERVED_BOOKING_SLUGS) {
      expectReserved(await admin(app, 'PATCH', adminPath(agent.id), { bookingSlug: slug }), slug);
      expectReserved(
        await api(app, 'PATCH', `/v1/agents/${agent.id}/booking`, {
          key: tenant.secret.key,
          body: { bookingSlug: slug, booking: { timezone: 'UTC' } },
        }),
        slug,
      );
    }
    const kept = expectStatus(await admin(app, 'GET', adminPath(agent.id)), 200).data;
    expect(kept).toMatchObject({ bookingSlug: 'rosa-vidal', booking: null });
  });

  it('a normal slug still works, also one that merely contains a reserved word', async () => {
    const created = await createAgent(app, tenant.org.id, { bookingSlug: 'manager' });
    expect(created.bookingSlug).toBe('manager');
    const changed = expectStatus(
      await api(app, 'PATCH', `/v1/agents/${created.id}/booking`, {
        key: tenant.secret.key,
        body: { bookingSlug: 'agents-office', booking: { timezone: 'UTC' } },
      }),
      200,
    ).data;
    expect(changed).toMatchObject({ bookingSlug: 'agents-office', bookable: true });
    const patched = expectStatus(
      await admin(app, 'PATCH', adminPath(created.id), { bookingSlug: 'manage-team' }),
      200,
    ).data;
    expect(patched.bookingSlug).toBe('manage-team');
  });

  it('an agent holding one from before keeps working; sending it again is refused, a new one is taken', async () => {
    const agent = await createAgent(app, tenant.org.id, { bookingSlug: 'legacy-slug' });
    const db = await testDatabase();
    await db.systemTx((tx) =>
      tx.execute(
        sql`UPDATE agents SET booking_slug = 'manage' WHERE organization_id = ${tenant.org.id} AND id = ${agent.id}`,
      ),
    );
    expectStatus(await admin(app, 'PATCH', adminPath(agent.id), { lastName: 'Vidal' }), 200);
    expectReserved(await admin(app, 'PATCH', adminPath(agent.id), { bookingSlug: 'manage' }), 'manage');
    const renamed = expectStatus(
      await admin(app, 'PATCH', adminPath(agent.id), { bookingSlug: 'rosa-manage' }),
      200,
    ).data;
    expect(renamed.bookingSlug).toBe('rosa-manage');
  });
});
