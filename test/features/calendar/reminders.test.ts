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
 *
 * Interrupted sends (issue 37 item 3, decision 0242): a worker killed between the decision's commit and
 * the outcome leaves the row SENDING; the rows such a crash leaves are written here directly. The next
 * scan after the lease resumes the send once (two scans at once too), with the same dedupe key given to
 * the platform and carried by `message.sent`, or settles it SKIPPED when it no longer helps.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { sendDueReminders } from '../../../src/features/calendar/index.ts';
import {
  messagingContext,
  sandboxProvider,
  type MessagingProvider,
} from '../../../src/features/conversations/index.ts';
import { SecretBox } from '../../../src/platform/crypto/secret-box.ts';
import {
  createAgent,
  createTenant,
  MESSAGING_AGENCY,
  type MessagingTenant,
} from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testConfig, testDatabase } from '../../helpers/test-app.ts';
import { eventsOf, storedMessages } from '../conversations/support.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const PUBLIC_URL = 'https://crm.example.com';
const secrets = new SecretBox(randomBytes(32));
let app: FastifyInstance;
let agency: MessagingTenant;
let agentId: string;
let templateId: string;

/** One run of the reminders job at `at` (with `provider` in the sandbox's place, to see what it is given). */
async function scan(at: number, provider?: MessagingProvider) {
  const messaging = messagingContext({ config: testConfig(), clock: () => new Date(at) });
  return sendDueReminders(
    {
      db: await testDatabase(),
      messaging: provider ? { ...messaging, provider } : messaging,
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
      dedupe_key: string | null;
      attempts: number;
    }>(
      tx,
      sql`SELECT offset_minutes, status, reason, message_id, starts_at, dedupe_key, attempts FROM appointment_reminders
          WHERE organization_id = ${orgId} AND appointment_id = ${appointmentId} ORDER BY offset_minutes DESC, starts_at`,
    ),
  );
}

let sequence = 0;
/**
 * An appointment of the agency's agent with its contact, about `startsIn` from now (the back office),
 * each 45 minutes after the one before so none overlap.
 */
async function appointment(
  startsIn: number,
  target = agency,
  agent = agentId,
  contactId = target.messaging.contactId,
) {
  sequence += 1;
  const startsAt = new Date(Math.ceil((Date.now() + startsIn + sequence * 45 * MINUTE) / MINUTE) * MINUTE);
  const response = await admin(app, 'POST', `/admin/v1/organizations/${target.org.id}/appointments`, {
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
          WHERE organization_id = ${target.org.id} AND contact_id = ${target.messaging.contactId} AND template_id = ${templateId}
          ORDER BY created_at, id`,
    ),
  );
}

beforeAll(async () => {
  app = await buildTestApp({ PUBLIC_URL }, { secrets });
  agency = await createTenant(app, MESSAGING_AGENCY);
  agentId = (
    await createAgent(app, agency.org.id, {
      firstName: 'Pablo',
      lastName: 'Ortega',
      bookingSlug: `pablo-${Date.now().toString(36)}`,
      booking: { timezone: 'Europe/Madrid', weekdays: [1, 2, 3, 4, 5, 6, 7] },
    })
  ).id;
  templateId = expectStatus(
    await admin(app, 'POST', `/admin/v1/organizations/${agency.org.id}/message-templates`, {
      name: 'visit_reminder',
      language: 'es',
      category: 'UTILITY',
      body: 'Hola {{firstName}}, le esperamos el {{date}} a las {{time}} con {{agentName}}. Cambiar: {{manageUrl}}',
      status: 'APPROVED',
    }),
    201,
  ).data.id as string;
  expectStatus(
    await admin(app, 'PATCH', `/admin/v1/organizations/${agency.org.id}`, { defaultLanguage: 'es' }),
    200,
  );
  expectStatus(
    await api(app, 'PATCH', '/v1/calendar/settings', {
      key: agency.secret.key,
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
      await api(app, 'GET', '/v1/calendar/settings', { key: agency.secret.key }),
      200,
    ).data;
    expect(settings).toMatchObject({ reminderOffsetsMinutes: [1440, 120], reminderTemplateId: templateId });
    // agency.messaging.approvedId names {{name}} and {{street}}: not a reminder's variables.
    const wrong = expectError(
      await api(app, 'PATCH', '/v1/calendar/settings', {
        key: agency.secret.key,
        body: { reminderTemplateId: agency.messaging.approvedId },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(wrong.message).toContain('name, street');
    expectError(
      await api(app, 'PATCH', '/v1/calendar/settings', {
        key: agency.secret.key,
        body: { reminderTemplateId: 'tpl_unknown' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await api(app, 'PATCH', '/v1/calendar/settings', {
        key: agency.secret.key,
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
    expect(await reminders(agency.org.id, visit.id)).toEqual([]);

    const at24 = visit.startsAt - 23 * HOUR;
    await Promise.all([scan(at24), scan(at24)]);
    // The worker restarts and scans again: the reminder was decided, nothing goes twice.
    await scan(at24 + MINUTE);
    expect((await reminders(agency.org.id, visit.id)).map((r) => [r.offset_minutes, r.status])).toEqual([
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
    const view = expectStatus(await app.inject({ method: 'GET', url: `/v1/booking/manage/${token}` }), 200)
      .data.data;
    expect(view).toMatchObject({ appointmentId: visit.id, startTime: local });

    await scan(visit.startsAt - 1.5 * HOUR);
    await scan(visit.startsAt - HOUR);
    messages = await remindersSent();
    expect(messages).toHaveLength(2);
    expect((await reminders(agency.org.id, visit.id)).map((r) => [r.offset_minutes, r.status])).toEqual([
      [1440, 'SENT'],
      [120, 'SENT'],
    ]);
    expect((await reminders(agency.org.id, visit.id)).map((r) => r.message_id).sort()).toEqual(
      messages.map((m) => m.id).sort(),
    );
  });

  it('after downtime sends only the most recent due reminder, and none when the visit is minutes away', async () => {
    const late = await appointment(30 * HOUR);
    const before = (await remindersSent()).length;
    // Down from before the 24 h reminder until 1 h before the visit: one reminder, the 2 h one.
    await scan(late.startsAt - HOUR);
    expect(
      (await reminders(agency.org.id, late.id)).map((r) => [r.offset_minutes, r.status, r.reason]),
    ).toEqual([
      [1440, 'SKIPPED', 'SUPERSEDED'],
      [120, 'SENT', null],
    ]);
    const tooLate = await appointment(31 * HOUR);
    await scan(tooLate.startsAt - 5 * MINUTE);
    expect((await reminders(agency.org.id, tooLate.id)).map((r) => r.reason)).toEqual([
      'SUPERSEDED',
      'TOO_LATE',
    ]);
    expect(await remindersSent()).toHaveLength(before + 1);
  });

  it('skips a reminder whose time had passed when the visit was booked, and reminds a moved visit of its new time', async () => {
    const soon = await appointment(3 * HOUR);
    await scan(Date.now());
    expect((await reminders(agency.org.id, soon.id)).map((r) => r.reason)).toEqual(['BOOKED_INSIDE_WINDOW']);

    const moved = await appointment(40 * HOUR);
    await scan(moved.startsAt - 23 * HOUR);
    const newStart = new Date(moved.startsAt + 24 * HOUR);
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${agency.org.id}/appointments/${moved.id}`, {
        startsAt: newStart.toISOString(),
      }),
      200,
    );
    await scan(newStart.getTime() - 23 * HOUR);
    const decided = await reminders(agency.org.id, moved.id);
    expect(decided.map((r) => [r.offset_minutes, r.status, new Date(r.starts_at).getTime()])).toEqual([
      [1440, 'SENT', moved.startsAt],
      [1440, 'SENT', newStart.getTime()],
    ]);
  });

  it('respects the conversation rules: a contact who opted out gets no reminder (SKIPPED, the rule said why)', async () => {
    const optedOut = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${agency.org.id}/contacts`, {
        firstName: 'Noelia',
        phone: '+34600999888',
        optedOut: true,
      }),
      201,
    ).data.id as string;
    const visit = await appointment(30 * HOUR, agency, agentId, optedOut);
    await scan(visit.startsAt - 23 * HOUR);
    const [decided] = await reminders(agency.org.id, visit.id);
    expect(decided).toMatchObject({ offset_minutes: 1440, status: 'SKIPPED', message_id: null });
    expect(decided?.reason).toContain('opted out');
    expect(
      await remindersSent({ ...agency, messaging: { ...agency.messaging, contactId: optedOut } }),
    ).toEqual([]);
  });

  it('sends nothing for a cancelled visit, a test twin, or an organization without a reminder template', async () => {
    const cancelled = await appointment(30 * HOUR);
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${agency.org.id}/appointments/${cancelled.id}`, {
        status: 'CANCELLED',
      }),
      200,
    );
    await scan(cancelled.startsAt - 23 * HOUR);
    expect(await reminders(agency.org.id, cancelled.id)).toEqual([]);

    const bare = await createTenant(app, MESSAGING_AGENCY);
    const bareAgent = (await createAgent(app, bare.org.id, { firstName: 'Ana' })).id;
    const untemplated = await appointment(30 * HOUR, bare, bareAgent);
    await scan(untemplated.startsAt - 23 * HOUR);
    expect((await reminders(bare.org.id, untemplated.id)).map((r) => r.reason)).toEqual(['NO_TEMPLATE']);

    const twinId = agency.org.testOrganizationId as string;
    const twinAgent = (await createAgent(app, twinId, { firstName: 'Test' })).id;
    const twinContact = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${twinId}/contacts`, {
        firstName: 'Prueba',
        phone: '+34600111222',
      }),
      201,
    ).data.id as string;
    const twin = {
      ...agency,
      org: { ...agency.org, id: twinId },
      messaging: { ...agency.messaging, contactId: twinContact },
    };
    const testVisit = await appointment(30 * HOUR, twin, twinAgent, twinContact);
    await scan(testVisit.startsAt - 23 * HOUR);
    expect((await reminders(twinId, testVisit.id)).map((r) => r.reason)).toEqual(['TEST_MODE']);
    expect(await storedMessages(twinId, twinContact)).toEqual([]);
  });
});

describe('sends a crash interrupted (left SENDING)', () => {
  /** The dedupe key of a visit's reminder, written apart from the service's. */
  const keyOf = (visit: { id: string; startsAt: number }, offset: number) =>
    `reminder:${visit.id}:${offset}:${new Date(visit.startsAt).toISOString()}`;

  /**
   * What a worker killed between the decision's commit and the send's outcome leaves: the reminder
   * SENDING, its lease ending at `lockedUntil`, `attempts` sends started.
   */
  async function leftSending(visit: { id: string; startsAt: number }, lockedUntil: number, attempts = 1) {
    const db = await testDatabase();
    await db.systemTx((tx) =>
      tx.execute(
        sql`INSERT INTO appointment_reminders
              (organization_id, appointment_id, offset_minutes, starts_at, status, dedupe_key, locked_until, attempts)
            VALUES (${agency.org.id}, ${visit.id}, 1440, ${new Date(visit.startsAt)}, 'SENDING',
                    ${keyOf(visit, 1440)}, ${new Date(lockedUntil)}, ${attempts})`,
      ),
    );
  }

  /** The sandbox, keeping what each send gave the platform. */
  function recordingProvider() {
    const calls: { to: string; idempotencyKey: string | undefined }[] = [];
    const provider: MessagingProvider = {
      ...sandboxProvider,
      async send(message) {
        calls.push({ to: message.to, idempotencyKey: message.idempotencyKey });
        return sandboxProvider.send(message);
      },
    };
    return { provider, calls };
  }

  it('resumes one left past its lease, once: SENT, with its dedupe key given to the platform and in message.sent', async () => {
    const visit = await appointment(30 * HOUR);
    const at = visit.startsAt - 23 * HOUR;
    await leftSending(visit, at - MINUTE);
    const before = (await remindersSent()).length;
    const { provider, calls } = recordingProvider();

    const tally = await scan(at, provider);
    expect(tally.resumed).toBeGreaterThanOrEqual(1);
    const [row] = await reminders(agency.org.id, visit.id);
    expect(row, JSON.stringify(row)).toMatchObject({
      offset_minutes: 1440,
      status: 'SENT',
      reason: null,
      dedupe_key: keyOf(visit, 1440),
      attempts: 2,
    });
    const messages = await remindersSent();
    expect(messages).toHaveLength(before + 1);
    expect(messages.map((m) => m.id)).toContain(row?.message_id);
    expect(calls.filter((c) => c.idempotencyKey === keyOf(visit, 1440))).toHaveLength(1);
    const sent = (await eventsOf(agency.org.id, 'message.sent')).find(
      (e) => e.data.message.id === row?.message_id,
    );
    expect(sent?.data.dedupeKey).toBe(keyOf(visit, 1440));

    // Later runs find nothing left to resume or decide for it.
    await scan(at + 5 * MINUTE, provider);
    expect(await remindersSent()).toHaveLength(before + 1);
    expect(calls.filter((c) => c.idempotencyKey === keyOf(visit, 1440))).toHaveLength(1);
  });

  it('a first send gives the platform the same key, and records it', async () => {
    const visit = await appointment(30 * HOUR);
    const { provider, calls } = recordingProvider();
    await scan(visit.startsAt - 23 * HOUR, provider);
    const [row] = await reminders(agency.org.id, visit.id);
    expect(row).toMatchObject({ status: 'SENT', dedupe_key: keyOf(visit, 1440), attempts: 1 });
    expect(calls.map((c) => c.idempotencyKey)).toContain(keyOf(visit, 1440));
  });

  it('leaves one within its lease alone (its worker may still be sending) and resumes it when the lease ends', async () => {
    const visit = await appointment(30 * HOUR);
    const at = visit.startsAt - 23 * HOUR;
    await leftSending(visit, at + MINUTE);
    const before = (await remindersSent()).length;
    await scan(at);
    expect((await reminders(agency.org.id, visit.id)).map((r) => [r.status, r.attempts])).toEqual([
      ['SENDING', 1],
    ]);
    expect(await remindersSent()).toHaveLength(before);

    await scan(at + 2 * MINUTE);
    expect((await reminders(agency.org.id, visit.id)).map((r) => [r.status, r.attempts])).toEqual([
      ['SENT', 2],
    ]);
    expect(await remindersSent()).toHaveLength(before + 1);
  });

  it('settles one that no longer helps SKIPPED, sending nothing: cancelled, moved, too late, superseded', async () => {
    const before = (await remindersSent()).length;
    const { provider, calls } = recordingProvider();

    const cancelled = await appointment(30 * HOUR);
    await leftSending(cancelled, cancelled.startsAt - 24 * HOUR);
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${agency.org.id}/appointments/${cancelled.id}`, {
        status: 'CANCELLED',
      }),
      200,
    );
    await scan(cancelled.startsAt - 23 * HOUR, provider);
    expect(
      (await reminders(agency.org.id, cancelled.id)).map((r) => [r.status, r.reason, r.message_id]),
    ).toEqual([['SKIPPED', 'NOT_ACTIVE', null]]);

    // Moved: the old start's reminder is dropped, the new start gets its own (far from the file's
    // other visits, which are 30 h and more ahead, 45 minutes apart).
    const moved = await appointment(100 * HOUR);
    await leftSending(moved, moved.startsAt - 24 * HOUR);
    const newStart = moved.startsAt + 3 * HOUR;
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${agency.org.id}/appointments/${moved.id}`, {
        startsAt: new Date(newStart).toISOString(),
      }),
      200,
    );
    await scan(newStart - 23 * HOUR, provider);
    expect(
      (await reminders(agency.org.id, moved.id)).map((r) => [
        r.status,
        r.reason,
        new Date(r.starts_at).getTime(),
      ]),
    ).toEqual([
      ['SKIPPED', 'MOVED', moved.startsAt],
      ['SENT', null, newStart],
    ]);

    // Down until 5 minutes before the visit: too late to help.
    const late = await appointment(30 * HOUR);
    await leftSending(late, late.startsAt - 24 * HOUR);
    await scan(late.startsAt - 5 * MINUTE, provider);
    expect((await reminders(agency.org.id, late.id)).map((r) => r.reason)).toContain('TOO_LATE');

    // Down until the 2 h reminder was due: that one goes instead (one late reminder, never two).
    const superseded = await appointment(30 * HOUR);
    await leftSending(superseded, superseded.startsAt - 24 * HOUR);
    await scan(superseded.startsAt - HOUR, provider);
    expect(
      (await reminders(agency.org.id, superseded.id)).map((r) => [r.offset_minutes, r.status, r.reason]),
    ).toEqual([
      [1440, 'SKIPPED', 'SUPERSEDED'],
      [120, 'SENT', null],
    ]);

    const stale = [cancelled, moved, late, superseded].map((visit) => keyOf(visit, 1440));
    expect(calls.filter((c) => stale.includes(c.idempotencyKey as string))).toEqual([]);
    // The moved visit's new start and the superseding 2 h reminder: nothing else.
    expect(await remindersSent()).toHaveLength(before + 2);
  });

  it('two runs at once resume it once', async () => {
    const visit = await appointment(30 * HOUR);
    const at = visit.startsAt - 23 * HOUR;
    await leftSending(visit, at - 3 * MINUTE);
    const before = (await remindersSent()).length;
    const { provider, calls } = recordingProvider();
    await Promise.all([scan(at, provider), scan(at, provider)]);
    expect((await reminders(agency.org.id, visit.id)).map((r) => [r.status, r.attempts])).toEqual([
      ['SENT', 2],
    ]);
    expect(await remindersSent()).toHaveLength(before + 1);
    expect(calls.filter((c) => c.idempotencyKey === keyOf(visit, 1440))).toHaveLength(1);
  });

  it('gives up on one whose every send was interrupted: FAILED after 3 starts, nothing sent', async () => {
    const visit = await appointment(30 * HOUR);
    const at = visit.startsAt - 23 * HOUR;
    await leftSending(visit, at - MINUTE, 3);
    const before = (await remindersSent()).length;
    await scan(at);
    const [row] = await reminders(agency.org.id, visit.id);
    expect(row).toMatchObject({ status: 'FAILED', attempts: 4, message_id: null });
    expect(row?.reason).toContain('interrupted 3 times');
    expect(await remindersSent()).toHaveLength(before);
  });
});
