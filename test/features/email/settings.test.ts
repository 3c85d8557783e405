/**
 * An organization's email settings through v1 (issue 41): the defaults until the first change, a
 * partial PATCH that makes the row, each field's checks, one organization's settings its own, and what
 * the worker reads (`emailSettingsOf`, `effectiveTemplate`) inside a tenant transaction.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import { effectiveTemplate, emailSettingsOf } from '../../../src/features/email/index.ts';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { createApiKey, createTenant, FAST } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let db: Database;

beforeAll(async () => {
  db = await testDatabase();
  app = await buildTestApp({}, { db });
});
afterAll(async () => {
  await app.close();
});

const DEFAULTS = { senderName: null, replyTo: null, alertAddress: null, hourlyLimit: 200, updatedAt: null };

const fresh = () => createTenant(app, { org: { name: 'Costa Homes' }, secret: FAST });
const get = async (key: string) =>
  expectStatus(await api(app, 'GET', '/v1/email/settings', { key }), 200).data;
const patch = (key: string, body: unknown) => api(app, 'PATCH', '/v1/email/settings', { key, body });

describe('email settings', () => {
  it('are the defaults until changed; a PATCH changes only the fields sent, and null clears one', async () => {
    const org = await fresh();
    expect(await get(org.secret.key)).toEqual(DEFAULTS);
    expect(await get(org.readOnly.key)).toEqual(DEFAULTS);

    const first = await patch(org.secret.key, {
      senderName: '  Costa Homes Málaga ',
      replyTo: 'info@costa.example',
    });
    expect(expectStatus(first, 200).data).toEqual({
      ...DEFAULTS,
      senderName: 'Costa Homes Málaga',
      replyTo: 'info@costa.example',
      updatedAt: expect.any(String),
    });
    const second = await patch(org.secret.key, { alertAddress: 'leads@costa.example', hourlyLimit: 10_000 });
    expect(expectStatus(second, 200).data).toMatchObject({
      senderName: 'Costa Homes Málaga',
      replyTo: 'info@costa.example',
      alertAddress: 'leads@costa.example',
      hourlyLimit: 10_000,
    });
    const cleared = expectStatus(await patch(org.secret.key, { senderName: null, replyTo: null }), 200).data;
    expect(cleared).toMatchObject({ senderName: null, replyTo: null, alertAddress: 'leads@costa.example' });
    expect(await get(org.secret.key)).toEqual(cleared);
  });

  const refused: [string, Record<string, unknown>, string][] = [
    ['an empty change', {}, 'body'],
    ['a sender name with a line break', { senderName: 'Costa\nHomes' }, 'body.senderName'],
    ['a sender name with angle brackets', { senderName: 'Costa <homes@x.example>' }, 'body.senderName'],
    ['a blank sender name', { senderName: '   ' }, 'body.senderName'],
    ['a sender name over 100 characters', { senderName: 'x'.repeat(101) }, 'body.senderName'],
    ['a Reply-To that is not an email address', { replyTo: 'info at costa' }, 'body.replyTo'],
    ['an alert address that is not an email address', { alertAddress: 'leads@' }, 'body.alertAddress'],
    ['an hourly limit of 0', { hourlyLimit: 0 }, 'body.hourlyLimit'],
    ['an hourly limit over 10,000', { hourlyLimit: 10_001 }, 'body.hourlyLimit'],
    ['a fractional hourly limit', { hourlyLimit: 2.5 }, 'body.hourlyLimit'],
    ['an unknown field', { fromAddress: 'x@y.example' }, 'fromAddress'],
  ];

  it.each(refused)(
    'refuses %s with a 400 naming the field, and changes nothing',
    async (_label, body, field) => {
      const org = await fresh();
      const error = expectError(await patch(org.secret.key, body), 400, 'VALIDATION_ERROR');
      expect(error.message).toContain(field);
      expect(await get(org.secret.key)).toEqual(DEFAULTS);
    },
  );

  it("are each organization's own, and a test key's are the twin's", async () => {
    const [a, b] = [await fresh(), await fresh()];
    expectStatus(await patch(a.secret.key, { hourlyLimit: 50 }), 200);
    expect(await get(b.secret.key)).toEqual(DEFAULTS);
    const testKey = await createApiKey(app, a.org.id, {
      type: 'secret',
      mode: 'test',
      accessLevel: 3,
      ...FAST,
    });
    expect(await get(testKey.key)).toEqual(DEFAULTS);
    expectStatus(await patch(testKey.key, { hourlyLimit: 5 }), 200);
    expect((await get(a.secret.key)).hourlyLimit).toBe(50);
  });

  it('are read with email:read and changed with email:write at level 3; a publishable key gets 403', async () => {
    const org = await fresh();
    const make = (body: Record<string, unknown>) =>
      createApiKey(app, org.org.id, { type: 'secret', ...FAST, ...body });
    const noRead = await make({ scopes: SCOPES.filter((s) => s !== 'email:read'), accessLevel: 3 });
    const noWrite = await make({ scopes: SCOPES.filter((s) => s !== 'email:write'), accessLevel: 3 });
    const level2 = await make({ scopes: [...SCOPES], accessLevel: 2 });
    for (const key of [org.publishable.key, noRead.key]) {
      expectError(await api(app, 'GET', '/v1/email/settings', { key }), 403, 'FORBIDDEN');
    }
    for (const key of [org.publishable.key, org.readOnly.key, noWrite.key, level2.key]) {
      expectError(await patch(key, { hourlyLimit: 7 }), 403, 'FORBIDDEN');
    }
    expect(await get(noWrite.key)).toEqual(DEFAULTS);
  });
});

describe('what the worker reads', () => {
  it("emailSettingsOf: the settings in effect, the organization's name as the sender by default", async () => {
    const org = await fresh();
    const read = () => db.tenantTx(org.org.id, (tx) => emailSettingsOf(tx, org.org.id));
    expect(await read()).toEqual({ ...DEFAULTS, fromName: 'Costa Homes' });
    expectStatus(
      await patch(org.secret.key, { senderName: 'Costa Homes Málaga', alertAddress: 'a@b.example' }),
      200,
    );
    expect(await read()).toMatchObject({
      fromName: 'Costa Homes Málaga',
      alertAddress: 'a@b.example',
      hourlyLimit: 200,
    });
  });

  it("effectiveTemplate: the organization's own, else built in; another language falls back to the default, then English", async () => {
    const org = await fresh();
    const template = (kind: 'VISIT_REMINDER' | 'LEAD_ALERT', language: string) =>
      db.tenantTx(org.org.id, (tx) => effectiveTemplate(tx, org.org.id, kind, language));
    expect(await template('VISIT_REMINDER', 'pt')).toMatchObject({
      language: 'pt',
      custom: false,
      subject: expect.stringMatching(/^Lembrete/),
    });
    // The default language is en: German falls back to it.
    expect(await template('VISIT_REMINDER', 'de')).toMatchObject({
      language: 'en',
      custom: false,
      subject: expect.stringMatching(/^Reminder/),
    });

    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${org.org.id}`, { defaultLanguage: 'es' }),
      200,
    );
    expect(await template('VISIT_REMINDER', 'de')).toMatchObject({
      language: 'es',
      subject: expect.stringMatching(/^Recordatorio/),
    });
    const own = { subject: 'Recordatorio propio', html: '<p>{{date}}</p>', text: '{{date}}' };
    expectStatus(
      await api(app, 'PUT', '/v1/email/templates/VISIT_REMINDER/es', { key: org.secret.key, body: own }),
      200,
    );
    expect(await template('VISIT_REMINDER', 'de')).toEqual({ ...own, language: 'es', custom: true });
    expect(await template('VISIT_REMINDER', 'es')).toEqual({ ...own, language: 'es', custom: true });
    expect(await template('LEAD_ALERT', 'es')).toMatchObject({
      custom: false,
      subject: expect.stringMatching(/^Nuevo contacto/),
    });
  });
});
