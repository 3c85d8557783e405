/**
 * Reminders from real worker processes (`npm run worker`) on PostgreSQL (issue 26 item 5): a reminder
 * sent by a worker killed with SIGKILL is not sent again by the worker started after it, and two
 * workers started together send a due reminder once. PGlite serves one process only, so this file
 * runs on the PostgreSQL leg.
 */
import type { ChildProcess } from 'node:child_process';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Database } from '../../../src/db/database.ts';
import {
  createAgent,
  createTenant,
  MESSAGING_AGENCY,
  type MessagingTenant,
} from '../../helpers/factories.ts';
import { admin, api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, openTestDatabase, TEST_DATABASE_URL } from '../../helpers/test-app.ts';
import { eventually, PROCESS_SECRETS_KEY, startWorkerProcess, stopProcess } from '../webhooks/support.ts';

const MINUTE = 60_000;

describe.skipIf(TEST_DATABASE_URL === undefined)('reminders from worker processes (PostgreSQL)', () => {
  let app: FastifyInstance;
  let db: Database;
  let agency: MessagingTenant;
  let agentId: string;
  let templateId: string;
  const children: ChildProcess[] = [];
  const databaseUrl = process.env.TEST_DATABASE_URL as string;
  let sequence = 0;

  beforeAll(async () => {
    db = await openTestDatabase(databaseUrl);
    app = await buildTestApp({ SECRETS_KEY: PROCESS_SECRETS_KEY }, { db });
    agency = await createTenant(app, MESSAGING_AGENCY);
    agentId = (await createAgent(app, agency.org.id, { firstName: 'Pablo' })).id;
    templateId = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${agency.org.id}/message-templates`, {
        name: 'visit_reminder',
        language: 'es',
        category: 'UTILITY',
        body: 'Hola {{firstName}}, le esperamos el {{date}} a las {{time}}.',
        status: 'APPROVED',
      }),
      201,
    ).data.id as string;
    expectStatus(
      await api(app, 'PATCH', '/v1/calendar/settings', {
        key: agency.secret.key,
        body: { reminderOffsetsMinutes: [120], reminderTemplateId: templateId },
      }),
      200,
    );
  });
  afterAll(async () => {
    await Promise.all(children.map((child) => stopProcess(child, 'SIGKILL')));
    await app.close();
    await db.close();
  });

  const worker = () => {
    const child = startWorkerProcess(databaseUrl);
    children.push(child);
    return child;
  };

  /** A visit whose 2 h reminder is due now (it starts in 100-ish minutes and was booked yesterday). */
  async function dueVisit(): Promise<string> {
    sequence += 1;
    const startsAt = new Date(Math.ceil((Date.now() + (90 + sequence * 5) * MINUTE) / MINUTE) * MINUTE);
    const id = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${agency.org.id}/appointments`, {
        agentId,
        contactId: agency.messaging.contactId,
        startsAt: startsAt.toISOString(),
        durationMinutes: 5,
      }),
      201,
    ).data.id as string;
    await db.systemTx((tx) =>
      tx.execute(sql`UPDATE appointments SET created_at = now() - interval '1 day' WHERE id = ${id}`),
    );
    return id;
  }

  /** The decisions on one visit's reminders, and the messages sent with the reminder template. */
  const decided = (appointmentId: string) =>
    db.systemTx((tx) =>
      queryRows<{ status: string; message_id: string | null }>(
        tx,
        sql`SELECT status, message_id FROM appointment_reminders WHERE appointment_id = ${appointmentId}`,
      ),
    );
  const templateMessages = () =>
    db.systemTx((tx) =>
      queryRows<{ id: string }>(
        tx,
        sql`SELECT id FROM messages WHERE organization_id = ${agency.org.id} AND template_id = ${templateId}`,
      ),
    );

  it('sends once across a worker killed with SIGKILL and the one started after it', async () => {
    const first = await dueVisit();
    const one = worker();
    await eventually(
      async () => expect(await decided(first)).toEqual([{ status: 'SENT', message_id: expect.any(String) }]),
      30_000,
    );
    await stopProcess(one, 'SIGKILL');
    const second = await dueVisit();
    worker();
    await eventually(async () => expect((await decided(second))[0]?.status).toBe('SENT'), 30_000);
    expect(await decided(first)).toHaveLength(1);
    expect(await templateMessages()).toHaveLength(2);
  }, 90_000);

  it('sends once when two workers start together', async () => {
    const before = (await templateMessages()).length;
    const visit = await dueVisit();
    worker();
    worker();
    await eventually(async () => expect((await decided(visit))[0]?.status).toBe('SENT'), 30_000);
    // Each worker scans as it starts: the two start within a few seconds of each other.
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    expect(await decided(visit)).toHaveLength(1);
    expect(await templateMessages()).toHaveLength(before + 1);
  }, 90_000);
});
