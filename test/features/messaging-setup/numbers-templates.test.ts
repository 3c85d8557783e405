/** The back office of messaging: an organization's numbers and its message templates (admin API). */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, MESSAGING_AGENCY, type MessagingTenant, nextPhone } from '../../helpers/factories.ts';
import { admin, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let agency: MessagingTenant;
let other: MessagingTenant;

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, MESSAGING_AGENCY);
  other = await createTenant(app, MESSAGING_AGENCY);
});
afterAll(async () => {
  await app.close();
});

describe('the back office: messaging numbers and templates', () => {
  it('keeps at most one active number per organization (409 naming the active one)', async () => {
    const base = `/admin/v1/organizations/${agency.org.id}/messaging-numbers`;
    const second = await admin(app, 'POST', base, { phone: nextPhone() });
    const error = expectError(second, 409, 'DUPLICATE') as Record<string, unknown>;
    expect(error.existingId).toBe(agency.messaging.numberId);
    const spare = expectStatus(
      await admin(app, 'POST', base, { phone: '611 22 33 44', active: false }),
      201,
    ).data;
    expect(spare).toMatchObject({ phone: '+34611223344', providerNumberId: '34611223344', active: false });
    expectError(await admin(app, 'PATCH', `${base}/${spare.id}`, { active: true }), 409, 'DUPLICATE');
    expectError(await admin(app, 'POST', base, { phone: '+34611223344', active: false }), 409, 'DUPLICATE');
    expectError(await admin(app, 'POST', base, { phone: '12' }), 400, 'VALIDATION_ERROR');
    const list = expectStatus(await admin(app, 'GET', base), 200);
    expect(list.meta.total).toBe(2);
    expectStatus(await admin(app, 'DELETE', `${base}/${spare.id}`), 200);
    expectError(await admin(app, 'GET', `${base}/${spare.id}`), 404, 'NOT_FOUND');
    // Another organization's number is as missing as a deleted one.
    expectError(
      await admin(
        app,
        'GET',
        `/admin/v1/organizations/${other.org.id}/messaging-numbers/${agency.messaging.numberId}`,
      ),
      404,
      'NOT_FOUND',
    );
  });

  it('reads template variables from the body and re-reads them when it changes', async () => {
    const base = `/admin/v1/organizations/${agency.org.id}/message-templates`;
    const created = expectStatus(
      await admin(app, 'POST', base, {
        name: 'welcome',
        category: 'UTILITY',
        body: 'Welcome {{first_name}}! Your agent is {{agent}}. {{first_name}}, reply here.',
      }),
      201,
    ).data;
    expect(created).toMatchObject({ language: 'en', status: 'PENDING', variables: ['first_name', 'agent'] });
    const changed = expectStatus(
      await admin(app, 'PATCH', `${base}/${created.id}`, { body: 'Hi {{ name }}', status: 'APPROVED' }),
      200,
    ).data;
    expect(changed).toMatchObject({ variables: ['name'], status: 'APPROVED' });
    expectError(
      await admin(app, 'POST', base, { name: 'welcome', category: 'UTILITY', body: 'x' }),
      409,
      'DUPLICATE',
    );
    expectError(
      await admin(app, 'POST', base, { name: 'Bad Name', category: 'UTILITY', body: 'x' }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await admin(app, 'POST', base, { name: 'x', category: 'PROMO', body: 'x' }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await admin(app, 'POST', base, { name: 'long', category: 'UTILITY', body: 'x'.repeat(1025) }),
      400,
      'VALIDATION_ERROR',
    );
    expect(expectStatus(await admin(app, 'GET', base), 200).meta.total).toBe(3);
    expectStatus(await admin(app, 'DELETE', `${base}/${created.id}`), 200);
    expectError(await admin(app, 'GET', `${base}/${created.id}`), 404, 'NOT_FOUND');
  });
});
