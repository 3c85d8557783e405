/**
 * What the email delivery test files share (issue 41): the app and a real SMTP server in this process,
 * a run of the worker's email.send job, the queued emails of a visit or lead, the mails the server got,
 * and visits booked over HTTP.
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import ICAL from 'ical.js';
import { expect } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { sendDueEmails } from '../../../src/features/email/index.ts';
import { openTransports } from '../../../src/features/email/email.transport.ts';
import { openSecretBox } from '../../../src/platform/crypto/secrets-key.ts';
import { busyPublishableKey, createAgent, createTenant, type Tenant } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../../helpers/smtp.ts';
import { buildTestApp, testConfig, testDatabase } from '../../helpers/test-app.ts';

export const DAY = 86_400_000;
export const FROM = 'no-reply@costa-homes.example';
export const ORIGIN = 'https://crm.example.com';
export const ALL_WEEK = [1, 2, 3, 4, 5, 6, 7];

/** The file's app, SMTP server, agency and booking-page key (openWorld, in its beforeAll). */
export const world = {} as { app: FastifyInstance; smtp: TestSmtpServer; tenant: Tenant; pageKey: string };
let sequence = 0;

export async function openWorld(): Promise<void> {
  world.smtp = await startSmtpServer();
  world.app = await buildTestApp();
  world.tenant = await createTenant(world.app);
  world.pageKey = await busyPublishableKey(world.app, world.tenant.org.id);
}

export async function closeWorld(): Promise<void> {
  await world.app.close();
  await world.smtp.close();
}

/** One run of the email.send job at `at` (default now). */
export async function runEmails(at?: Date) {
  const transports = openTransports({
    emailTransport: 'smtp',
    smtpUrl: world.smtp.url,
    emailTimeoutMs: 5_000,
  });
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

export async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const db = await testDatabase();
  return db.systemTx((tx) => queryRows<T>(tx, query));
}

export interface EmailRecord {
  id: string;
  kind: string;
  status: string;
  reason: string | null;
  to_address: string | null;
  attempts: number;
  transport: string | null;
  language: string | null;
}
export const emailsAbout = (refId: string) =>
  rows<EmailRecord>(
    sql`SELECT id, kind, status, reason, to_address, attempts, transport, language FROM emails
        WHERE ref_id = ${refId} ORDER BY created_at, kind DESC`,
  );

export const mailTo = (address: string) => world.smtp.received.filter((mail) => mail.to.includes(address));
/** A header's value as sent (mailparser folds the List-* headers into one object: read the lines). */
export const header = (mail: ReceivedMail, name: string) => {
  const line = mail.parsed.headerLines.find((entry) => entry.key === name)?.line;
  return line?.slice(line.indexOf(':') + 1).trim();
};

/** The calendar of a mail's invitation (the text/calendar part nodemailer adds for `icalEvent`). */
export function invitation(mail: ReceivedMail) {
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

export async function bookableAgent(email: string | null = 'elena@costa-homes.example') {
  sequence += 1;
  const slug = `email-${Date.now().toString(36)}-${sequence}`;
  const agent = await createAgent(world.app, world.tenant.org.id, {
    firstName: 'Elena',
    lastName: 'Vidal',
    email,
    bookingSlug: slug,
    booking: { timezone: 'Europe/Madrid', weekdays: ALL_WEEK },
  });
  return { id: agent.id, slug };
}

export async function book(
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
  const response = await world.app.inject({
    method: 'POST',
    url: `/v1/booking/${slug}`,
    headers: { 'x-api-key': world.pageKey, ...headers },
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
export async function bookIn(
  agency: Tenant,
  agentFields: Record<string, unknown>,
  visitor: Record<string, unknown> & { startTime: string },
): Promise<{ appointmentId: string; startsAt: string }> {
  sequence += 1;
  const agent = await createAgent(world.app, agency.org.id, {
    ...agentFields,
    bookingSlug: `email-other-${Date.now().toString(36)}-${sequence}`,
    booking: { timezone: 'UTC', weekdays: ALL_WEEK },
  });
  const key = await busyPublishableKey(world.app, agency.org.id);
  const date = new Date(Date.now() + 4 * DAY).toISOString().slice(0, 10);
  return expectStatus(
    await api(world.app, 'POST', `/v1/booking/${agent.bookingSlug}`, { key, body: { ...visitor, date } }),
    201,
  ).data.data;
}
