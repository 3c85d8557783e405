/**
 * Email delivery when it does not go smoothly (issue 41, decision 0267), against a real SMTP server in
 * this process: a refused send retries with the same Message-ID, then fails for good with
 * `email.failed`; an email whose every send ended its worker is not started again; the hourly limit
 * holds emails back untried; a test twin's emails go into the sandbox only; the log is purged after
 * EMAIL_LOG_RETENTION_DAYS.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailFeature } from '../../../src/features/email/index.ts';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { openSecretBox } from '../../../src/platform/crypto/secrets-key.ts';
import { createAgent, createApiKey, createTenant } from '../../helpers/factories.ts';
import { admin, expectStatus } from '../../helpers/http.ts';
import { testConfig, testDatabase } from '../../helpers/test-app.ts';
import {
  book,
  bookableAgent,
  bookIn,
  closeWorld,
  DAY,
  emailsAbout,
  mailTo,
  openWorld,
  rows,
  runEmails,
  world,
} from './delivery-support.ts';

beforeAll(openWorld);
afterAll(closeWorld);

describe('failures', () => {
  it('retries a refused send with the same Message-ID, then fails for good with email.failed', async () => {
    const agent = await bookableAgent();
    const visit = await book(agent.slug);
    world.smtp.refuse = '451 4.3.0 Try again later';
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
      world.smtp.refuse = null;
    }
    const failed = (await emailsAbout(visit.appointmentId)).find((row) => row.kind === 'VISIT_CONFIRMATION');
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 6 });
    const events = await rows<{ data: { email: { id: string; status: string } } }>(
      sql`SELECT data FROM events WHERE organization_id = ${world.tenant.org.id} AND type = 'email.failed'`,
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
    const other = await createTenant(world.app);
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
    const key = await createApiKey(world.app, world.tenant.org.id, {
      type: 'secret',
      mode: 'test',
      scopes: [...SCOPES],
      accessLevel: 3,
    });
    const twinId = world.tenant.org.testOrganizationId as string;
    const contact = expectStatus(
      await admin(world.app, 'POST', `/admin/v1/organizations/${twinId}/contacts`, {
        firstName: 'Test',
        email: 'sandbox.visitor@example.com',
        phone: '+34611000777',
      }),
      201,
    ).data;
    const agent = await createAgent(world.app, twinId, { email: 'twin.agent@example.com' });
    const appointment = expectStatus(
      await admin(world.app, 'POST', `/admin/v1/organizations/${twinId}/appointments`, {
        agentId: agent.id,
        contactId: contact.id,
        startsAt: new Date(Date.now() + 3 * DAY).toISOString(),
        durationMinutes: 30,
      }),
      201,
    ).data;
    expect(key.organizationId).toBe(twinId);
    const before = world.smtp.received.length;
    await runEmails();
    expect(await emailsAbout(appointment.id)).toMatchObject([
      { kind: 'VISIT_CONFIRMATION', status: 'SENT', transport: 'SANDBOX' },
    ]);
    expect(world.smtp.received.length).toBe(before);
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
