/**
 * Email delivery (issue 41, decision 0267), end to end: visits booked, moved and cancelled, leads and
 * visit requests sent over HTTP queue their emails in the same transaction (migration 0037); the
 * worker's email.send job (`sendDueEmails`) sends them to a real SMTP server in this process
 * (`smtp-server`), where `mailparser` reads them as a mail provider would. The visitor's invitation
 * parses as iCalendar (ical.js) with the appointment's UID and SEQUENCE, the manage link in the mail
 * opens the visit, and the RFC 8058 one-click unsubscribe POST revokes the EMAIL consent, after which
 * nothing more goes to that visitor. Failures, limits, test mode and
 * retention: email-failures.test.ts.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDueReminders } from '../../../src/features/calendar/index.ts';
import { messagingContext } from '../../../src/features/conversations/index.ts';
import { openSecretBox } from '../../../src/platform/crypto/secrets-key.ts';
import { createProperty, createTenant } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import type { ReceivedMail } from '../../helpers/smtp.ts';
import { testConfig, testDatabase } from '../../helpers/test-app.ts';
import {
  book,
  bookableAgent,
  bookIn,
  closeWorld,
  emailsAbout,
  header,
  invitation,
  mailTo,
  openWorld,
  ORIGIN,
  rows,
  runEmails,
  world,
  DAY,
  FROM,
} from './delivery-support.ts';

beforeAll(openWorld);
afterAll(closeWorld);

describe('a booked visit', () => {
  it('sends the visitor a confirmation with the invitation, the manage link and one-click unsubscribe, and the agent an alert', async () => {
    const agent = await bookableAgent();
    const property = await createProperty(world.app, world.tenant.org.id, { agentId: agent.id });
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
    const page = await world.app.inject({ url: new URL((manage as RegExpExecArray)[0]).pathname });
    expect(page.statusCode).toBe(200);

    // RFC 8058: both headers; the POST mail clients send revokes the EMAIL consent.
    expect(header(confirmation, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const unsubscribe = /<(https:\/\/[^>]+)>/.exec(header(confirmation, 'list-unsubscribe') ?? '');
    expect(unsubscribe).not.toBeNull();
    const unsubscribed = await world.app.inject({
      method: 'POST',
      url: new URL((unsubscribe as RegExpExecArray)[1] as string).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(unsubscribed.statusCode).toBe(200);
    const consents = expectStatus(
      await api(world.app, 'GET', `/v1/contacts/${visit.contactId}/consents`, {
        key: world.tenant.secret.key,
      }),
      200,
    ).data;
    expect(JSON.stringify(consents)).toMatch(/"channel":"EMAIL","status":"REVOKED"/);

    // The agent's alert names the visitor, with a reply link.
    const [alert] = mailTo('elena@costa-homes.example').filter((m) => m.parsed.text?.includes(visit.email));
    expect(alert?.parsed.text).toContain('Marta Gil');
    expect(header(alert as ReceivedMail, 'list-unsubscribe')).toBeUndefined();

    // Nothing more reaches this visitor: the cancellation is skipped for the revoked consent.
    expectStatus(
      await world.app.inject({ method: 'POST', url: `/v1/booking/manage/${visit.token}/cancel` }),
      200,
    );
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
    const moved = await world.app.inject({
      method: 'POST',
      url: `/v1/booking/manage/${visit.token}/move`,
      payload: { date, startTime: '11:00' },
    });
    const newStart = expectStatus(moved, 200).data.data.startsAt as string;
    await runEmails();
    expectStatus(
      await world.app.inject({ method: 'POST', url: `/v1/booking/manage/${visit.token}/cancel` }),
      200,
    );
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
    const other = await createTenant(world.app);
    expectStatus(
      await api(world.app, 'PATCH', '/v1/calendar/settings', {
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
    const property = await createProperty(world.app, world.tenant.org.id, {
      agentId: agent.id,
      publishedOnPortal: true,
    });
    expectStatus(
      await api(world.app, 'POST', '/v1/leads', {
        key: world.pageKey,
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
      await api(world.app, 'POST', '/v1/leads/schedule', {
        key: world.pageKey,
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
