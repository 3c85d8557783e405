// The mail system's bounce hook (issue 41, decision 0269): signed with EMAIL_BOUNCE_SECRET over the raw
// body, off (503) without it. A bounce finds the email by the id its Message-ID carries, across
// organizations, and in one transaction of that organization makes it BOUNCED, suppresses the address
// of a permanent bounce and records `email.bounced`; repeats, unknown ids and emails never sent answer
// 200 and change nothing.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSuppressed } from '../../../src/features/email/index.ts';
import { createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import {
  BOUNCE_SECRET,
  bounceSignature,
  EMAIL_FROM,
  emailRow,
  eventsOf,
  seedEmail,
  suppressionsOf,
} from './support.ts';

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp({ EMAIL_BOUNCE_SECRET: BOUNCE_SECRET, EMAIL_FROM });
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

/** Posts a raw body to the hook, signed unless `signature` says otherwise (null: no header). */
function post(raw: string, signature: string | null = bounceSignature(raw), target = app) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== null) headers['x-email-signature'] = signature;
  return target.inject({ method: 'POST', url: '/hooks/email/bounces', headers, payload: raw });
}
const bounce = (body: Record<string, unknown>) => post(JSON.stringify(body));
const messageIdOf = (id: string) => `<${id}@costa-homes.example>`;

const suppressed = async (organizationId: string, address: string) => {
  const db = await testDatabase();
  return db.tenantTx(organizationId, (tx) => isSuppressed(tx, organizationId, address));
};

describe('POST /hooks/email/bounces: a permanent bounce', () => {
  it('makes the email BOUNCED, suppresses its address and records email.bounced, in the event log', async () => {
    const email = await seedEmail(tenant.org.id, { toAddress: 'Marta.Gil@Example.com' });
    const reason = '550 5.1.1 The email account that you tried to reach does not exist';
    const response = await bounce({
      messageId: messageIdOf(email.id),
      recipient: 'marta.gil@example.com',
      permanent: true,
      reason,
    });
    expect(expectStatus(response, 200).data).toEqual({
      outcome: 'BOUNCED',
      emailId: email.id,
      suppressed: true,
    });
    expect(await emailRow(email.id)).toMatchObject({ status: 'BOUNCED', reason });
    expect(await suppressionsOf(tenant.org.id)).toEqual([
      { address: 'marta.gil@example.com', reason, email_id: email.id },
    ]);
    expect(await suppressed(tenant.org.id, 'MARTA.GIL@example.com')).toBe(true);

    const events = await eventsOf(tenant.org.id, 'email.bounced');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      actor: { kind: 'INTEGRATION' },
      data: {
        email: {
          id: email.id,
          kind: 'VISIT_CONFIRMATION',
          refId: email.refId,
          to: 'Marta.Gil@Example.com',
          messageId: messageIdOf(email.id),
          status: 'BOUNCED',
          reason,
          attempts: 1,
        },
        bounce: { permanent: true, reason },
      },
    });
    const log = expectStatus(
      await api(app, 'GET', '/v1/event-log', { key: tenant.secret.key, query: { type: 'email.bounced' } }),
      200,
    );
    expect(log.data.map((event: { data: { email: { id: string } } }) => event.data.email.id)).toEqual([
      email.id,
    ]);
  });

  it('takes the Message-ID without its angle brackets, and no recipient', async () => {
    const email = await seedEmail(tenant.org.id, { toAddress: 'ines@example.com' });
    const body = { messageId: `${email.id}@costa-homes.example`, permanent: true };
    expect(expectStatus(await bounce(body), 200).data.outcome).toBe('BOUNCED');
    expect(await emailRow(email.id)).toMatchObject({ status: 'BOUNCED', reason: null });
    expect(await suppressed(tenant.org.id, 'ines@example.com')).toBe(true);
  });

  it('again: REPEATED, nothing recorded twice', async () => {
    const email = await seedEmail(tenant.org.id, { toAddress: 'twice@example.com' });
    const body = { messageId: messageIdOf(email.id), permanent: true, reason: '550 no such user' };
    expect(expectStatus(await bounce(body), 200).data.outcome).toBe('BOUNCED');
    expect(expectStatus(await bounce(body), 200).data).toEqual({
      outcome: 'REPEATED',
      emailId: email.id,
      suppressed: true,
    });
    const events = await eventsOf(tenant.org.id, 'email.bounced');
    expect(events.filter((event) => (event.data.email as { id: string }).id === email.id)).toHaveLength(1);
  });
});

describe('a soft bounce', () => {
  it('makes the email BOUNCED without suppressing; a permanent one after it suppresses and records again', async () => {
    const email = await seedEmail(tenant.org.id, { toAddress: 'full@example.com' });
    const soft = { messageId: messageIdOf(email.id), permanent: false, reason: '452 4.2.2 Mailbox full' };
    expect(expectStatus(await bounce(soft), 200).data).toEqual({
      outcome: 'BOUNCED',
      emailId: email.id,
      suppressed: false,
    });
    expect(await emailRow(email.id)).toMatchObject({ status: 'BOUNCED', reason: '452 4.2.2 Mailbox full' });
    expect(await suppressed(tenant.org.id, 'full@example.com')).toBe(false);
    expect(expectStatus(await bounce(soft), 200).data.outcome).toBe('REPEATED');

    const hard = { ...soft, permanent: true, reason: '550 5.1.1 Gone' };
    expect(expectStatus(await bounce(hard), 200).data.outcome).toBe('BOUNCED');
    expect(await suppressed(tenant.org.id, 'full@example.com')).toBe(true);
    const events = (await eventsOf(tenant.org.id, 'email.bounced')).filter(
      (event) => (event.data.email as { id: string }).id === email.id,
    );
    expect(events.map((event) => event.data.bounce)).toEqual([
      { permanent: false, reason: '452 4.2.2 Mailbox full' },
      { permanent: true, reason: '550 5.1.1 Gone' },
    ]);
  });
});

describe('bounces that change nothing (200, so the mail system stops retrying)', () => {
  it('an unknown or foreign Message-ID: UNKNOWN', async () => {
    for (const messageId of [
      '<eml_0000000000000000000000@costa-homes.example>',
      '<CAF=abc123@mail.gmail.com>',
      'not a message id',
    ]) {
      expect(expectStatus(await bounce({ messageId, permanent: true }), 200).data, messageId).toEqual({
        outcome: 'UNKNOWN',
        emailId: null,
        suppressed: false,
      });
    }
  });

  it('another recipient than the email went to: UNKNOWN, the email untouched', async () => {
    const email = await seedEmail(tenant.org.id, { toAddress: 'real@example.com' });
    const body = { messageId: messageIdOf(email.id), recipient: 'someone-else@example.com', permanent: true };
    expect(expectStatus(await bounce(body), 200).data.outcome).toBe('UNKNOWN');
    expect((await emailRow(email.id))?.status).toBe('SENT');
    expect(await suppressed(tenant.org.id, 'someone-else@example.com')).toBe(false);
    expect(await suppressed(tenant.org.id, 'real@example.com')).toBe(false);
  });

  it('an email never sent (queued, skipped, failed): NOT_SENT, untouched', async () => {
    for (const status of ['QUEUED', 'SKIPPED', 'FAILED']) {
      const email = await seedEmail(tenant.org.id, {
        status,
        toAddress: `${status.toLowerCase()}@example.com`,
      });
      const response = await bounce({ messageId: messageIdOf(email.id), permanent: true });
      expect(expectStatus(response, 200).data, status).toEqual({
        outcome: 'NOT_SENT',
        emailId: email.id,
        suppressed: false,
      });
      expect((await emailRow(email.id))?.status).toBe(status);
    }
  });
});

describe('the signature', () => {
  it('missing, malformed or wrong: 401, nothing changed', async () => {
    const email = await seedEmail(tenant.org.id, { toAddress: 'signed@example.com' });
    const raw = JSON.stringify({ messageId: messageIdOf(email.id), permanent: true });
    for (const signature of [
      null,
      '',
      'sha256=',
      `sha256=${'0'.repeat(64)}`,
      bounceSignature(raw, 'another-secret'),
      bounceSignature(`${raw} `),
      bounceSignature(raw).replace('sha256=', 'sha1='),
    ]) {
      expectError(await post(raw, signature), 401, 'UNAUTHORIZED');
    }
    expect((await emailRow(email.id))?.status).toBe('SENT');
    // Upper-case hex is the same signature.
    const upper = `sha256=${bounceSignature(raw).slice(7).toUpperCase()}`;
    expect(expectStatus(await post(raw, upper), 200).data.outcome).toBe('BOUNCED');
  });

  it('is off without EMAIL_BOUNCE_SECRET: 503, even for a body signed with some secret', async () => {
    const off = await buildTestApp({ EMAIL_FROM });
    try {
      const email = await seedEmail(tenant.org.id);
      const raw = JSON.stringify({ messageId: messageIdOf(email.id), permanent: true });
      const error = expectError(await post(raw, bounceSignature(raw), off), 503, 'SERVICE_UNAVAILABLE');
      expect(error.message).toContain('EMAIL_BOUNCE_SECRET');
      expect((await emailRow(email.id))?.status).toBe('SENT');
    } finally {
      await off.close();
    }
  });
});

describe('a malformed body (signed)', () => {
  it('is a 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ permanent: true }, 'messageId'],
      [{ messageId: '<x@y>' }, 'permanent'],
      [{ messageId: '<x@y>', permanent: 'yes' }, 'permanent'],
      [{ messageId: '', permanent: true }, 'messageId'],
      [{ messageId: 42, permanent: true }, 'messageId'],
      [{ messageId: '<x@y>', permanent: true, recipient: 'not an address' }, 'recipient'],
      [{ messageId: '<x@y>', permanent: true, reason: 'x'.repeat(1001) }, 'reason'],
      [{ messageId: '<x@y>', permanent: true, bounces: [] }, 'bounces'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await post(JSON.stringify(body)), 400, 'VALIDATION_ERROR');
      expect(error.message, JSON.stringify(body)).toContain(field);
    }
    const error = expectError(await post('{"messageId":'), 400, 'VALIDATION_ERROR');
    expect(error.message).toContain('body');
  });
});

describe('tenancy', () => {
  it("bounces only the email's own organization: another one's same address stays deliverable", async () => {
    const other = await createTenant(app);
    const ours = await seedEmail(tenant.org.id, { toAddress: 'shared@example.com' });
    const theirs = await seedEmail(other.org.id, { toAddress: 'shared@example.com' });
    expect(
      expectStatus(await bounce({ messageId: messageIdOf(theirs.id), permanent: true }), 200).data.outcome,
    ).toBe('BOUNCED');
    expect(await suppressed(other.org.id, 'shared@example.com')).toBe(true);
    expect(await suppressed(tenant.org.id, 'shared@example.com')).toBe(false);
    expect((await emailRow(ours.id))?.status).toBe('SENT');
    const ourEvents = await eventsOf(tenant.org.id, 'email.bounced');
    expect(ourEvents.some((event) => (event.data.email as { id: string }).id === theirs.id)).toBe(false);
    expect(await eventsOf(other.org.id, 'email.bounced')).toHaveLength(1);
  });

  it("is taken while the email's organization is suspended (a fact about mail already sent)", async () => {
    const suspended = await createTenant(app);
    const email = await seedEmail(suspended.org.id, { toAddress: 'late@example.com' });
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${suspended.org.id}`, { isActive: false }),
      200,
    );
    expect(
      expectStatus(await bounce({ messageId: messageIdOf(email.id), permanent: true }), 200).data.outcome,
    ).toBe('BOUNCED');
    expect(await suppressed(suspended.org.id, 'late@example.com')).toBe(true);
  });
});
