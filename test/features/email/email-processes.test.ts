/**
 * Email from real worker processes (`npm run worker`) on PostgreSQL (issue 41): a worker killed with
 * SIGKILL in the middle of a send (the SMTP server holds the message, its answer not yet given) leaves
 * the email SENDING; the worker started after it sends it again when the lease ends, with the same
 * Message-ID, and settles it SENT. Each email arrives at most twice, always with one Message-ID. PGlite
 * serves one process only, so this file runs on the PostgreSQL leg.
 */
import type { ChildProcess } from 'node:child_process';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Database } from '../../../src/db/database.ts';
import { busyPublishableKey, createAgent, createTenant, type Tenant } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.ts';
import { buildTestApp, openTestDatabase, TEST_DATABASE_URL } from '../../helpers/test-app.ts';
import { eventually, PROCESS_SECRETS_KEY, startWorkerProcess, stopProcess } from '../webhooks/support.ts';

const DAY = 86_400_000;

describe.skipIf(TEST_DATABASE_URL === undefined)('email from worker processes (PostgreSQL)', () => {
  let app: FastifyInstance;
  let db: Database;
  let smtp: TestSmtpServer;
  let tenant: Tenant;
  const children: ChildProcess[] = [];
  const databaseUrl = process.env.TEST_DATABASE_URL as string;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    db = await openTestDatabase(databaseUrl);
    app = await buildTestApp({ SECRETS_KEY: PROCESS_SECRETS_KEY }, { db });
    tenant = await createTenant(app);
  });
  afterAll(async () => {
    await Promise.all(children.map((child) => stopProcess(child, 'SIGKILL')));
    await app.close();
    await db.close();
    await smtp.close();
  });

  const worker = () => {
    // A 1.5 s SMTP time limit: a 9.5 s lease (3 × the limit + 5 s).
    const child = startWorkerProcess(databaseUrl, {
      SMTP_URL: smtp.url,
      EMAIL_TIMEOUT_MS: '1500',
      EMAIL_FROM: 'no-reply@costa-homes.example',
    });
    children.push(child);
    return child;
  };

  const emailsOf = (appointmentId: string) =>
    db.systemTx((tx) =>
      queryRows<{ id: string; kind: string; status: string; attempts: number }>(
        tx,
        sql`SELECT id, kind, status, attempts FROM emails WHERE ref_id = ${appointmentId} ORDER BY kind`,
      ),
    );

  it('sends an email its worker was killed sending once more, with the same Message-ID', async () => {
    const agent = await createAgent(app, tenant.org.id, {
      email: null,
      bookingSlug: `email-kill-${Date.now().toString(36)}`,
      booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7] },
    });
    const key = await busyPublishableKey(app, tenant.org.id);
    const date = new Date(Date.now() + 3 * DAY).toISOString().slice(0, 10);
    const visit = expectStatus(
      await api(app, 'POST', `/v1/booking/${agent.bookingSlug}`, {
        key,
        body: {
          firstName: 'Marta',
          phone: '+34611223344',
          email: 'marta.kill@example.com',
          date,
          startTime: '10:00',
        },
      }),
      201,
    ).data.data as { appointmentId: string };

    // The first worker's send reaches the server, which keeps the message and holds its answer: the
    // worker is killed before it learns the message went.
    smtp.hold = 1_200;
    const one = worker();
    const kept = new Promise<void>((resolve) => {
      smtp.onReceive = () => resolve();
    });
    await kept;
    await stopProcess(one, 'SIGKILL');
    smtp.onReceive = null;
    smtp.hold = 0;
    const [interrupted] = (await emailsOf(visit.appointmentId)).filter(
      (row) => row.kind === 'VISIT_CONFIRMATION',
    );
    expect(interrupted).toMatchObject({ status: 'SENDING', attempts: 1 });

    worker();
    await eventually(async () => {
      const [row] = (await emailsOf(visit.appointmentId)).filter((r) => r.kind === 'VISIT_CONFIRMATION');
      expect(row).toMatchObject({ status: 'SENT', attempts: 2 });
    }, 45_000);
    const mails = smtp.received.filter((mail) => mail.to.includes('marta.kill@example.com'));
    expect(mails.length).toBeGreaterThanOrEqual(1);
    expect(mails.length).toBeLessThanOrEqual(2);
    expect(new Set(mails.map((mail) => mail.parsed.messageId))).toEqual(
      new Set([`<${interrupted?.id}@costa-homes.example>`]),
    );
  }, 90_000);
});
