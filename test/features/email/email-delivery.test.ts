/**
 * Email delivery (issue 41, decision 0267), end to end: visits booked, moved and cancelled, leads and
 * visit requests sent over HTTP queue their emails in the same transaction (migration 0037); the
 * worker's email.send job (`sendDueEmails`) sends them to a real SMTP server in this process
 * (`smtp-server`), where `mailparser` reads them as a mail provider would. The visitor's invitation
 * parses as iCalendar (ical.js) with the appointment's UID and SEQUENCE, the manage link in the mail
 * opens the visit, and the RFC 8058 one-click unsubscribe POST revokes the EMAIL consent, after which
 * nothing more goes to that visitor. Failures retry with the same Message-ID, then fail for good with
 * `email.failed`; the hourly limit holds emails back; test mode sends into the sandbox only.
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { sendDueReminders } from '../../../src/features/calendar/index.ts';
import { messagingContext } from '../../../src/features/conversations/index.ts';
import { emailFeature, sendDueEmails } from '../../../src/features/email/index.ts';
import { openTransports } from '../../../src/features/email/email.transport.ts';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { openSecretBox } from '../../../src/platform/crypto/secrets-key.ts';
import {
  busyPublishableKey,
  createAgent,
  createApiKey,
  createProperty,
  createTenant,
  type Tenant,
} from '../../helpers/factories.ts';
import { admin, api, expectStatus } from '../../helpers/http.ts';
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../../helpers/smtp.ts';
import { buildTestApp, testConfig, testDatabase } from '../../helpers/test-app.ts';

const DAY = 86_400_000;
const FROM = 'no-reply@costa-homes.example';
const ORIGIN = 'https://crm.example.com';
const ALL_WEEK = [1, 2, 3, 4, 5, 6, 7];

let app: FastifyInstance;
let smtp: TestSmtpServer;
let tenant: Tenant;
let pageKey: string;
let sequence = 0;

/** One run of the email.send job at `at` (default now). */
async function runEmails(at?: Date) {
  const transports = openTransports({ emailTransport: 'smtp', smtpUrl: smtp.url, emailTimeoutMs: 5_000 });
  try {
    return await sendDueEmails({
      db: await testDatabase(),
      secrets: openSecretBox(testConfig()),
      transports,
      origin: ORIGIN,
      from: FROM,
      leaseMs: 30_000,
      ...(at === undefined ? {} : { now: () => at }),
    });
  } finally {
    transports.live?.close();
  }
}

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const db = await testDatabase();
  return db.systemTx((tx) => queryRows<T>(tx, query));
}

interface EmailRecord {
  id: string;
  kind: string;
  status: string;
  reason: string | null;
  to_address: string | null;
  attempts: number;
  transport: string | null;
  language: string | null;
}
const emailsAbout = (refId: string) =>
  rows<EmailRecord>(
    sql`SELECT id, kind, status, reason, to_address, attempts, transport, language FROM emails
        WHERE ref_id = ${refId} ORDER BY created_at, kind DESC`,
  );

const mailTo = (address: string) => smtp.received.filter((mail) => mail.to.includes(address));
/** A header's value as sent (mailparser folds the List-* headers into one object: read the lines). */
const header = (mail: ReceivedMail, name: string) => {
  const line = mail.parsed.headerLines.find((entry) => entry.key === name)?.line;
  return line?.slice(line.indexOf(':') + 1).trim();
};

/** The calendar of a mail's invitation (the text/calendar part nodemailer adds for `icalEvent`). */
function invitation(mail: ReceivedMail) {
  const part = mail.parsed.attachments.find((attachment) => attachment.contentType === 'text/calendar');
  expect(part, 'the mail carries a text/calendar invitation').toBeDefined();
  const calendar = new ICAL.Component(ICAL.parse(part?.content.toString('utf8') as string));
  const event = calendar.getFirstSubcomponent('vevent') as ICAL.Component;
  return {
    method: calendar.getFirstPropertyValue('method'),
    uid: event.getFirstPropertyValue('uid'),
    sequence: Number(event.getFirstPropertyValue('sequence')),
    start: (event.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString(),
    attendee: String(event.getFirstPropertyValue('attendee')),
  };
}

async function bookableAgent(email: string | null = 'elena@costa-homes.example') {
  sequence += 1;
  const slug = `email-${Date.now().toString(36)}-${sequence}`;
  const agent = await createAgent(app, tenant.org.id, {
    firstName: 'Elena',
    lastName: 'Vidal',
    email,
    bookingSlug: slug,
    booking: { timezone: 'Europe/Madrid', weekdays: ALL_WEEK },
  });
  return { id: agent.id, slug };
}

async function book(
  slug: string,
  fields: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  sequence += 1;
  const date = new Date(Date.now() + 5 * DAY).toISOString().slice(0, 10);
  const body = {
    firstName: 'Marta',
    lastName: 'Gil',
    phone: `+3461170${1000 + sequence}`,
    email: `marta.${sequence}@example.com`,
    date,
    startTime: '10:00',
    ...fields,
  };
  const response = await app.inject({
    method: 'POST',
    url: `/v1/booking/${slug}`,
    headers: { 'x-api-key': pageKey, ...headers },
    payload: body,
  });
  const receipt = expectStatus(response, 201).data.data;
  return {
    ...receipt,
    email: body.email,
    token: new URL(receipt.manageUrl).pathname.replace(/^\/visits\//, ''),
  };
}

/** A visit booked four days ahead with a new bookable agent (UTC, every day) of another agency. */
async function bookIn(
  agency: Tenant,
  agentFields: Record<string, unknown>,
  visitor: Record<string, unknown> & { startTime: string },
): Promise<{ appointmentId: string; startsAt: string }> {
  sequence += 1;
  const agent = await createAgent(app, agency.org.id, {
    ...agentFields,
    bookingSlug: `email-other-${Date.now().toString(36)}-${sequence}`,
    booking: { timezone: 'UTC', weekdays: ALL_WEEK },
  });
  const key = await busyPublishableKey(app, agency.org.id);
  const date = new Date(Date.now() + 4 * DAY).toISOString().slice(0, 10);
  return expectStatus(
    await api(app, 'POST', `/v1/booking/${agent.bookingSlug}`, { key, body: { ...visitor, date } }),
    201,
  ).data.data;
}

beforeAll(async () => {
  smtp = await startSmtpServer();
  app = await buildTestApp();
  tenant = await createTenant(app);
  pageKey = await busyPublishableKey(app, tenant.org.id);
});
afterAll(async () => {
  await app.close();
  await smtp.close();
});

describe('a booked visit', () => {
  it('sends the visitor a confirmation with the invitation, the manage link and one-click unsubscribe, and the agent an alert', async () => {
    const agent = await bookableAgent();
    const property = await createProperty(app, tenant.org.id, { agentId: agent.id });
    const visit = await book(agent.slug, { propertyId: property.id });
    // Queued in the booking's transaction, before any worker ran.
    expect((await emailsAbout(visit.appointmentId)).map((row) => [row.kind, row.status])).toEqual([
      ['VISIT_CONFIRMATION', 'QUEUED'],
      ['BOOKING_ALERT', 'QUEUED'],
    ]);

    await runEmails();
    const sent = await emailsAbout(visit.appointmentId);
    expect(sent.map((row) => [row.kind, row.status, row.transport, row.attempts])).toEqual([
      ['VISIT_CONFIRMATION', 'SENT', 'SMTP', 1],
      ['BOOKING_ALERT', 'SENT', 'SMTP', 1],
    ]);

    const [mail] = mailTo(visit.email);
    expect(mail).toBeDefined();
    const confirmation = mail as ReceivedMail;
    expect(confirmation.parsed.messageId).toBe(`<${sent[0]?.id}@costa-homes.example>`);
    expect(confirmation.parsed.from?.value[0]?.address).toBe(FROM);
    expect(confirmation.parsed.text).toContain('Marta');

    const ics = invitation(confirmation);
    expect(ics).toMatchObject({
      method: 'REQUEST',
      uid: `${visit.appointmentId}@agency-crm`,
      sequence: 0,
      start: visit.startsAt,
    });
    expect(ics.attendee).toContain(visit.email);

    // The manage link in the mail opens the visit.
    const manage = /https:\/\/crm\.example\.com\/visits\/[^\s"<>]+/.exec(confirmation.parsed.text ?? '');
    expect(manage).not.toBeNull();
    const page = await app.inject({ url: new URL((manage as RegExpExecArray)[0]).pathname });
    expect(page.statusCode).toBe(200);

    // RFC 8058: both headers; the POST mail clients send revokes the EMAIL consent.
    expect(header(confirmation, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const unsubscribe = /<(https:\/\/[^>]+)>/.exec(header(confirmation, 'list-unsubscribe') ?? '');
    expect(unsubscribe).not.toBeNull();
    const unsubscribed = await app.inject({
      method: 'POST',
      url: new URL((unsubscribe as RegExpExecArray)[1] as string).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(unsubscribed.statusCode).toBe(200);
    const consents = expectStatus(
      await api(app, 'GET', `/v1/contacts/${visit.contactId}/consents`, { key: tenant.secret.key }),
      200,
    ).data;
    expect(JSON.stringify(consents)).toMatch(/"channel":"EMAIL","status":"REVOKED"/);

    // The agent's alert names the visitor, with a reply link.
    const [alert] = mailTo('elena@costa-homes.example').filter((m) => m.parsed.text?.includes(visit.email));
    expect(alert?.parsed.text).toContain('Marta Gil');
    expect(header(alert as ReceivedMail, 'list-unsubscribe')).toBeUndefined();

    // Nothing more reaches this visitor: the cancellation is skipped for the revoked consent.
    expectStatus(await app.inject({ method: 'POST', url: `/v1/booking/manage/${visit.token}/cancel` }), 200);
    await runEmails();
    expect(
      (await emailsAbout(visit.appointmentId)).find((row) => row.kind === 'VISIT_CANCELLED'),
    ).toMatchObject({
      status: 'SKIPPED',
      reason: 'CONSENT_REVOKED',
    });
    expect(mailTo(visit.email)).toHaveLength(1);
  });

  it('sends an update with a higher SEQUENCE on a move, and METHOD:CANCEL on a cancel, in the browser language', async () => {
    const agent = await bookableAgent();
    const visit = await book(agent.slug, {}, { 'accept-language': 'pt-PT,pt;q=0.9,en;q=0.5' });
    await runEmails();
    const date = new Date(Date.now() + 6 * DAY).toISOString().slice(0, 10);
    const moved = await app.inject({
      method: 'POST',
      url: `/v1/booking/manage/${visit.token}/move`,
      payload: { date, startTime: '11:00' },
    });
    const newStart = expectStatus(moved, 200).data.data.startsAt as string;
    await runEmails();
    expectStatus(await app.inject({ method: 'POST', url: `/v1/booking/manage/${visit.token}/cancel` }), 200);
    await runEmails();

    const mails = mailTo(visit.email);
    expect(mails.map((mail) => invitation(mail)).map(({ method, sequence: seq }) => [method, seq])).toEqual([
      ['REQUEST', 0],
      ['REQUEST', 1],
      ['CANCEL', 2],
    ]);
    expect(invitation(mails[1] as ReceivedMail).start).toBe(newStart);
    const kinds = await emailsAbout(visit.appointmentId);
    expect(
      kinds.filter((row) => row.kind.startsWith('VISIT_')).map((row) => [row.kind, row.language]),
    ).toEqual([
      ['VISIT_CONFIRMATION', 'pt'],
      ['VISIT_UPDATED', 'pt'],
      ['VISIT_CANCELLED', 'pt'],
    ]);
    // Three distinct emails, each with its own Message-ID.
    expect(new Set(mails.map((mail) => mail.parsed.messageId)).size).toBe(3);
  });
});

describe('reminders by email', () => {
  it('queues the reminder with its decision when the channels name EMAIL, and sends it in the visitor language', async () => {
    const other = await createTenant(app);
    expectStatus(
      await api(app, 'PATCH', '/v1/calendar/settings', {
        key: other.secret.key,
        body: { reminderChannels: ['EMAIL'], reminderOffsetsMinutes: [120] },
      }),
      200,
    );
    const receipt = await bookIn(
      other,
      { firstName: 'Ana' },
      { firstName: 'Clara', phone: '+34611234987', email: 'clara@example.com', startTime: '09:00' },
    );
    const remindAt = new Date(Date.parse(receipt.startsAt) - 90 * 60_000);
    await sendDueReminders(
      {
        db: await testDatabase(),
        messaging: messagingContext({ config: testConfig(), clock: () => remindAt }),
        secrets: openSecretBox(testConfig()),
        publicUrl: ORIGIN,
      },
      remindAt,
    );
    // The message channel is off; the email is queued with the decision.
    const [decision] = await rows<{ status: string; reason: string | null }>(
      sql`SELECT status, reason FROM appointment_reminders WHERE appointment_id = ${receipt.appointmentId}`,
    );
    expect(decision).toEqual({ status: 'SKIPPED', reason: 'MESSAGING_OFF' });
    await runEmails();
    const reminder = (await emailsAbout(receipt.appointmentId)).find((row) => row.kind === 'VISIT_REMINDER');
    expect(reminder).toMatchObject({ status: 'SENT', to_address: 'clara@example.com' });
    const mails = mailTo('clara@example.com');
    expect(mails).toHaveLength(2);
    // The reminder carries no invitation (the confirmation did).
    expect(mails[1]?.parsed.attachments.filter((part) => part.contentType === 'text/calendar')).toEqual([]);
  });
});

describe('alerts to the agent', () => {
  it('tells the listing agent of a new lead and a new visit request, with the person and a link', async () => {
    const agent = await bookableAgent('pablo@costa-homes.example');
    const property = await createProperty(app, tenant.org.id, { agentId: agent.id, publishedOnPortal: true });
    expectStatus(
      await api(app, 'POST', '/v1/leads', {
        key: pageKey,
        body: {
          firstName: 'Lucía',
          phone: '+34611999001',
          email: 'lucia@example.com',
          propertyId: property.id,
          message: '¿Tiene garaje?',
        },
      }),
      201,
    );
    expectStatus(
      await api(app, 'POST', '/v1/leads/schedule', {
        key: pageKey,
        body: {
          firstName: 'Lucía',
          phone: '+34611999001',
          propertyId: property.id,
          preferredTime: 'morning',
        },
      }),
      201,
    );
    await runEmails();
    const alerts = mailTo('pablo@costa-homes.example');
    expect(alerts).toHaveLength(2);
    expect(alerts.map((mail) => mail.parsed.text).join('\n')).toContain('¿Tiene garaje?');
    for (const mail of alerts) expect(mail.parsed.text).toContain('mailto:lucia@example.com');
  });

  it('skips an alert with nowhere to go, and says so in the log', async () => {
    const agent = await bookableAgent(null);
    const visit = await book(agent.slug);
    await runEmails();
    expect(
      (await emailsAbout(visit.appointmentId)).find((row) => row.kind === 'BOOKING_ALERT'),
    ).toMatchObject({
      status: 'SKIPPED',
      reason: 'NO_ADDRESS',
    });
  });
});

describe('failures', () => {
  it('retries a refused send with the same Message-ID, then fails for good with email.failed', async () => {
    const agent = await bookableAgent();
    const visit = await book(agent.slug);
    smtp.refuse = '451 4.3.0 Try again later';
    let at = Date.now();
    try {
      await runEmails(new Date(at));
      const first = (await emailsAbout(visit.appointmentId)).find((row) => row.kind === 'VISIT_CONFIRMATION');
      expect(first).toMatchObject({ status: 'QUEUED', attempts: 1 });
      expect(first?.reason).toContain('Try again later');
      // Five more tries, each once its delay has passed: then FAILED.
      for (let attempt = 2; attempt <= 6; attempt += 1) {
        at += 7 * 3_600_000;
        await runEmails(new Date(at));
      }
    } finally {
      smtp.refuse = null;
    }
    const failed = (await emailsAbout(visit.appointmentId)).find((row) => row.kind === 'VISIT_CONFIRMATION');
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 6 });
    const events = await rows<{ data: { email: { id: string; status: string } } }>(
      sql`SELECT data FROM events WHERE organization_id = ${tenant.org.id} AND type = 'email.failed'`,
    );
    expect(events.map((event) => event.data.email.id)).toContain(failed?.id);
  });

  it('gives up on an email whose every send ended its worker: FAILED, not started a seventh time', async () => {
    const agent = await bookableAgent();
    const visit = await book(agent.slug);
    // What six killed workers leave: SENDING, six starts, the last lease over.
    await rows(
      sql`UPDATE emails SET status = 'SENDING', attempts = 6, next_attempt_at = now() - interval '1 second'
          WHERE ref_id = ${visit.appointmentId} AND kind = 'VISIT_CONFIRMATION'`,
    );
    const before = mailTo(visit.email).length;
    await runEmails();
    const row = (await emailsAbout(visit.appointmentId)).find((email) => email.kind === 'VISIT_CONFIRMATION');
    expect(row).toMatchObject({ status: 'FAILED', attempts: 7 });
    expect(row?.reason).toContain('interrupted');
    expect(mailTo(visit.email).length).toBe(before);
  });

  it('holds emails past the hourly limit back to the next hour, untried', async () => {
    const other = await createTenant(app);
    await rows(sql`INSERT INTO email_settings (organization_id, hourly_limit) VALUES (${other.org.id}, 1)`);
    const receipt = await bookIn(
      other,
      { email: 'ana@other.example' },
      { firstName: 'Rui', phone: '+351912345678', email: 'rui@example.com', startTime: '10:00' },
    );
    await runEmails();
    const emails = await emailsAbout(receipt.appointmentId);
    expect(emails.map((row) => row.status).sort()).toEqual(['QUEUED', 'SENT']);
    expect(emails.find((row) => row.status === 'QUEUED')).toMatchObject({
      attempts: 0,
      reason: 'HOURLY_LIMIT',
    });
  });
});

describe('test mode', () => {
  it("sends a test twin's emails into the sandbox, never to the mail server", async () => {
    const key = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      mode: 'test',
      scopes: [...SCOPES],
      accessLevel: 3,
    });
    const twinId = tenant.org.testOrganizationId as string;
    const contact = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${twinId}/contacts`, {
        firstName: 'Test',
        email: 'sandbox.visitor@example.com',
        phone: '+34611000777',
      }),
      201,
    ).data;
    const agent = await createAgent(app, twinId, { email: 'twin.agent@example.com' });
    const appointment = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${twinId}/appointments`, {
        agentId: agent.id,
        contactId: contact.id,
        startsAt: new Date(Date.now() + 3 * DAY).toISOString(),
        durationMinutes: 30,
      }),
      201,
    ).data;
    expect(key.organizationId).toBe(twinId);
    const before = smtp.received.length;
    await runEmails();
    expect(await emailsAbout(appointment.id)).toMatchObject([
      { kind: 'VISIT_CONFIRMATION', status: 'SENT', transport: 'SANDBOX' },
    ]);
    expect(smtp.received.length).toBe(before);
  });
});

describe('retention', () => {
  it('purges emails older than EMAIL_LOG_RETENTION_DAYS, with what they said, and keeps the rest', async () => {
    const agent = await bookableAgent();
    const old = await book(agent.slug);
    const fresh = await book(agent.slug, { startTime: '12:00' });
    await rows(
      sql`UPDATE emails SET created_at = now() - interval '31 days' WHERE ref_id = ${old.appointmentId}`,
    );
    const jobs =
      emailFeature.jobs?.({
        db: await testDatabase(),
        config: { emailLogRetentionDays: 30 },
        secrets: openSecretBox(testConfig()),
      }) ?? [];
    const purge = jobs.find((job) => job.name === 'email.purge');
    await purge?.run();
    expect(await emailsAbout(old.appointmentId)).toEqual([]);
    expect((await emailsAbout(fresh.appointmentId)).length).toBeGreaterThan(0);
  });
});
