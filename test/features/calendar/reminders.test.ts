/**
 * Appointment reminders (issue 26 item 5, decision 0239): the worker's scan (`sendDueReminders`, the
 * `appointments.reminders` job) run at chosen instants against the real database and the sandbox
 * messaging platform. A reminder goes over the messaging channel with the organization's APPROVED
 * template, filled with the visit's words and its manage link, and is decided once per appointment,
 * offset and start: a second scan (a restarted worker) and two workers at once send nothing more;
 * after downtime only the most recent due reminder goes, and only while it still helps; a moved visit
 * is reminded of its new time; cancelled visits, test twins and organizations without a template get
 * none. Every decision is in appointment_reminders: the assertions read it (and the messages) for this
 * file's visits only, since a scan also decides what other files left in the same database.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { sendDueReminders } from '../../../src/features/calendar/index.ts';
import { messagingContext } from '../../../src/features/conversations/index.ts';
import { SecretBox } from '../../../src/platform/crypto/secret-box.ts';
import { createAgent } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testConfig, testDatabase } from '../../helpers/test-app.ts';
import { createMessagingAgency, storedMessages, type MessagingAgency } from '../conversations/support.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const PUBLIC_URL = 'https://crm.example.com';
const secrets = new SecretBox(randomBytes(32));
let app: FastifyInstance;
let agency: MessagingAgency;
let agentId: string;
let templateId: string;

async function scan(at: number) {
  return sendDueReminders(
    {
      db: await testDatabase(),
      messaging: messagingContext({ config: testConfig(), clock: () => new Date(at) }),
      secrets,
      publicUrl: PUBLIC_URL,
    },
    new Date(at),
  );
}

async function reminders(orgId: string, appointmentId: string) {
  const db = await testDatabase();
  return db.systemTx((tx) =>
    queryRows<{
      offset_minutes: number;
      status: string;
      reason: string | null;
      message_id: string | null;
      starts_at: Date;
    }>(
      tx,
      sql`SELECT offset_minutes, status, reason, message_id, starts_at FROM appointment_reminders
          WHERE organization_id = ${orgId} AND appointment_id = ${appointmentId} ORDER BY offset_minutes DESC, starts_at`,
    ),
  );
}

let sequence = 0;
/**
 * An appointment of the agency's agent with its contact, about `startsIn` from now (the back office),
 * each 45 minutes after the one before so none overlap.
 */
async function appointment(startsIn: number, target = agency, agent = agentId, contactId = target.contactId) {
  sequence += 1;
  const startsAt = new Date(Math.ceil((Date.now() + startsIn + sequence * 45 * MINUTE) / MINUTE) * MINUTE);
  const response = await admin(app, 'POST', `/admin/v1/organizations/${target.orgId}/appointments`, {
    agentId: agent,
    contactId,
    startsAt: startsAt.toISOString(),
    durationMinutes: 30,
  });
  return { id: (expectStatus(response, 201).data as { id: string }).id, startsAt: startsAt.getTime() };
}

/** The reminder messages in the contact's conversation, oldest first. */
async function remindersSent(target = agency) {
  const db = await testDatabase();
  return db.systemTx((tx) =>
    queryRows<{ id: string; renderedBody: string }>(
      tx,
      sql`SELECT id, rendered_body AS "renderedBody" FROM messages
          WHERE organization_id = ${target.orgId} AND contact_id = ${target.contactId} AND template_id = ${templateId}
          ORDER BY created_at, id`,
    ),
  );
}

beforeAll(async () => {
  app = await buildTestApp({ PUBLIC_URL }, { secrets });
  agency = await createMessagingAgency(app);
  agentId = (
    await createAgent(app, agency.orgId, {
      firstName: 'Pablo',
      lastName: 'Ortega',
      bookingSlug: `pablo-${Date.now().toString(36)}`,
      booking: { timezone: 'Europe/Madrid', weekdays: [1, 2, 3, 4, 5, 6, 7] },
    })
  ).id;
  templateId = expectStatus(
    await admin(app, 'POST', `/admin/v1/organizations/${agency.orgId}/message-templates`, {
      name: 'visit_reminder',
      language: 'es',
      category: 'UTILITY',
      body: 'Hola {{firstName}}, le esperamos el {{date}} a las {{time}} con {{agentName}}. Cambiar: {{manageUrl}}',
      status: 'APPROVED',
    }),
    201,
  ).data.id as string;
  expectStatus(
    await admin(app, 'PATCH', `/admin/v1/organizations/${agency.orgId}`, { defaultLanguage: 'es' }),
    200,
  );
  expectStatus(
    await api(app, 'PATCH', '/v1/calendar/settings', {
      key: agency.secret,
      body: { timezone: 'Europe/Madrid', reminderTemplateId: templateId },
    }),
    200,
  );
});
afterAll(async () => {
  await app.close();
});

describe('calendar settings: the reminder template', () => {
  it('takes a template of the organization whose variables a reminder can fill; 400 otherwise', async () => {
    const settings = expectStatus(
      await api(app, 'GET', '/v1/calendar/settings', { key: agency.secret }),
      200,
    ).data;
    expect(settings).toMatchObject({ reminderOffsetsMinutes: [1440, 120], reminderTemplateId: templateId });
    // agency.approvedId names {{name}} and {{street}}: not a reminder's variables.
    const wrong = expectError(
      await api(app, 'PATCH', '/v1/calendar/settings', {
        key: agency.secret,
        body: { reminderTemplateId: agency.approvedId },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(wrong.message).toContain('name, street');
    expectError(
      await api(app, 'PATCH', '/v1/calendar/settings', {
        key: agency.secret,
        body: { reminderTemplateId: 'tpl_unknown' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await api(app, 'PATCH', '/v1/calendar/settings', {
        key: agency.secret,
        body: { reminderOffsetsMinutes: [1] },
      }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('the reminder scan', () => {
  it('sends the 24 h and the 2 h reminders once each, across a restarted worker and two workers at once', async () => {
    const visit = await appointment(30 * HOUR);
    await scan(visit.startsAt - 25 * HOUR);
    expect(await reminders(agency.orgId, visit.id)).toEqual([]);

    const at24 = visit.startsAt - 23 * HOUR;
    await Promise.all([scan(at24), scan(at24)]);
    // The worker restarts and scans again: the reminder was decided, nothing goes twice.
    await scan(at24 + MINUTE);
    expect((await reminders(agency.orgId, visit.id)).map((r) => [r.offset_minutes, r.status])).toEqual([
      [1440, 'SENT'],
    ]);
    let messages = await remindersSent();
    expect(messages).toHaveLength(1);
    const text = messages[0]?.renderedBody as string;
    expect(text).toMatch(/^Hola Lucía, le esperamos el .+ a las \d\d:\d\d con Pablo Ortega\. Cambiar: /);
    // The visit's local time in the agent's zone (Europe/Madrid), in the agency's language.
    const local = new Intl.DateTimeFormat('es', {
      timeZone: 'Europe/Madrid',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(visit.startsAt);
    expect(text).toContain(`a las ${local} con`);
    // Its manage link works without a key.
    const link = /Cambiar: (\S+)$/.exec(text)?.[1] as string;
    expect(link.startsWith(`${PUBLIC_URL}/visits/`)).toBe(true);
    const token = link.slice(`${PUBLIC_URL}/visits/`.length);
    const view = expectStatus(
      await app.inject({ method: 'GET', url: `/v1/booking/manage/${token}` }),
      200,
    ).data;
    expect(view).toMatchObject({ appointmentId: visit.id, startTime: local });

    await scan(visit.startsAt - 1.5 * HOUR);
    await scan(visit.startsAt - HOUR);
    messages = await remindersSent();
    expect(messages).toHaveLength(2);
    expect((await reminders(agency.orgId, visit.id)).map((r) => [r.offset_minutes, r.status])).toEqual([
      [1440, 'SENT'],
      [120, 'SENT'],
    ]);
    expect((await reminders(agency.orgId, visit.id)).map((r) => r.message_id).sort()).toEqual(
      messages.map((m) => m.id).sort(),
    );
  });

  it('after downtime sends only the most recent due reminder, and none when the visit is minutes away', async () => {
    const late = await appointment(30 * HOUR);
    const before = (await remindersSent()).length;
    // Down from before the 24 h reminder until 1 h before the visit: one reminder, the 2 h one.
    await scan(late.startsAt - HOUR);
    expect(
      (await reminders(agency.orgId, late.id)).map((r) => [r.offset_minutes, r.status, r.reason]),
    ).toEqual([
      [1440, 'SKIPPED', 'SUPERSEDED'],
      [120, 'SENT', null],
    ]);
    const tooLate = await appointment(31 * HOUR);
    await scan(tooLate.startsAt - 5 * MINUTE);
    expect((await reminders(agency.orgId, tooLate.id)).map((r) => r.reason)).toEqual([
      'SUPERSEDED',
      'TOO_LATE',
    ]);
    expect(await remindersSent()).toHaveLength(before + 1);
  });

  it('skips a reminder whose time had passed when the visit was booked, and reminds a moved visit of its new time', async () => {
    const soon = await appointment(3 * HOUR);
    await scan(Date.now());
    expect((await reminders(agency.orgId, soon.id)).map((r) => r.reason)).toEqual(['BOOKED_INSIDE_WINDOW']);

    const moved = await appointment(40 * HOUR);
    await scan(moved.startsAt - 23 * HOUR);
    const newStart = new Date(moved.startsAt + 24 * HOUR);
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${agency.orgId}/appointments/${moved.id}`, {
        startsAt: newStart.toISOString(),
      }),
      200,
    );
    await scan(newStart.getTime() - 23 * HOUR);
    const decided = await reminders(agency.orgId, moved.id);
    expect(decided.map((r) => [r.offset_minutes, r.status, new Date(r.starts_at).getTime()])).toEqual([
      [1440, 'SENT', moved.startsAt],
      [1440, 'SENT', newStart.getTime()],
    ]);
  });

  it('respects the conversation rules: a contact who opted out gets no reminder (SKIPPED, the rule said why)', async () => {
    const optedOut = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${agency.orgId}/contacts`, {
        firstName: 'Noelia',
        phone: '+34600999888',
        optedOut: true,
      }),
      201,
    ).data.id as string;
    const visit = await appointment(30 * HOUR, agency, agentId, optedOut);
    await scan(visit.startsAt - 23 * HOUR);
    const [decided] = await reminders(agency.orgId, visit.id);
    expect(decided).toMatchObject({ offset_minutes: 1440, status: 'SKIPPED', message_id: null });
    expect(decided?.reason).toContain('opted out');
    expect(await remindersSent({ ...agency, contactId: optedOut })).toEqual([]);
  });

  it('sends nothing for a cancelled visit, a test twin, or an organization without a reminder template', async () => {
    const cancelled = await appointment(30 * HOUR);
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${agency.orgId}/appointments/${cancelled.id}`, {
        status: 'CANCELLED',
      }),
      200,
    );
    await scan(cancelled.startsAt - 23 * HOUR);
    expect(await reminders(agency.orgId, cancelled.id)).toEqual([]);

    const bare = await createMessagingAgency(app);
    const bareAgent = (await createAgent(app, bare.orgId, { firstName: 'Ana' })).id;
    const untemplated = await appointment(30 * HOUR, bare, bareAgent);
    await scan(untemplated.startsAt - 23 * HOUR);
    expect((await reminders(bare.orgId, untemplated.id)).map((r) => r.reason)).toEqual(['NO_TEMPLATE']);

    const twinAgent = (await createAgent(app, agency.testOrgId, { firstName: 'Test' })).id;
    const twinContact = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${agency.testOrgId}/contacts`, {
        firstName: 'Prueba',
        phone: '+34600111222',
      }),
      201,
    ).data.id as string;
    const twin = { ...agency, orgId: agency.testOrgId, contactId: twinContact };
    const testVisit = await appointment(30 * HOUR, twin, twinAgent, twinContact);
    await scan(testVisit.startsAt - 23 * HOUR);
    expect((await reminders(agency.testOrgId, testVisit.id)).map((r) => r.reason)).toEqual(['TEST_MODE']);
    expect(await storedMessages(agency.testOrgId, twinContact)).toEqual([]);
  });
});
