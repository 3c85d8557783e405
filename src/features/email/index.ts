// Email (issue 41): confirmations, updates, cancellations and reminders of visits to the visitor, with
// the .ics and the manage link; alerts of new leads, visit requests and bookings to the agent. Queued in
// the transaction of the change (migration 0037), sent by the worker's email.send job over SMTP or into
// the sandbox; templates per organization; one-click unsubscribe; bounces.
import { defineFeature, type JobContext } from '../../platform/features/manifest.ts';
import { purgeOlderThan } from '../../platform/jobs/purge.ts';
import { emailBounceRoutes } from './email.bounces.routes.ts';
import { emailBounceSchemas } from './email.bounces.schema.ts';
import { EmailBounced, EmailFailed, EmailSent } from './email.events.ts';
import { emailLogRoutes } from './email.log.routes.ts';
import { emailLogSchemas } from './email.log.schema.ts';
import { emailMcpCounts, emailMcpTools } from './email.mcp.ts';
import { emailPersonalData } from './email.personal-data.ts';
import { emailRoutes } from './email.routes.ts';
import { emailSchemas } from './email.schema.ts';
import { openTransports } from './email.transport.ts';
import { unsubscribeCredential } from './email.unsubscribe.ts';
import { emailUnsubscribeRoutes } from './email.unsubscribe.routes.ts';
import { emailLeaseMs, sendDueEmails } from './email.worker.ts';

export { sendDueEmails, type EmailTally } from './email.worker.ts';
export { EMAIL_KINDS, EMAIL_LANGUAGES, type EmailKind } from './email.kinds.ts';
export { checkTemplate, renderTemplate, type EmailTemplate, type TemplateVariables } from './email.render.ts';
export { effectiveTemplate, type EffectiveTemplate } from './email.service.ts';
export { emailSettingsOf, updateEmailSettings, type EmailSettingsInEffect } from './email.settings.ts';
export { ListEmailsQuerySchema, type Email, type ListEmailsQuery } from './email.log.schema.ts';
export { getEmail, listEmails } from './email.log.service.ts';
export { emailIdOf, emailPayloadOf, messageIdOf } from './email.message-id.ts';
export { isSuppressed } from './email.suppressions.store.ts';
export { unsubscribeToken, unsubscribeUrl } from './email.unsubscribe.ts';

/** What the document shows of an email of the log. */
const EMAIL_EXAMPLE = {
  refId: 'apt_0VhJ3kQ2Zt8mX1pR4sT6uE',
  to: 'marta@example.com',
  subject: 'Your visit on Thursday 12 March at 11:00',
  messageId: '<eml_0VhJ3kQ2Zt8mX1pR4sT6uE@costa-homes.example>',
  language: 'en',
  text: 'Hello Marta, your visit to Calle Larios 4 is confirmed for Thursday 12 March at 11:00.',
  html: '<p>Hello Marta, your visit to Calle Larios 4 is confirmed for Thursday 12 March at 11:00.</p>',
};

/** The email feature's manifest (src/features.ts lists it). */
export const emailFeature = defineFeature({
  name: 'email',
  personalData: emailPersonalData,
  scopes: [
    { name: 'email:read', description: 'reads the email log, the email settings and the email templates' },
    { name: 'email:write', description: 'changes the email settings and the email templates' },
  ],
  tags: [{ name: 'Email', description: 'Emails to visitors and agents: settings, templates, the log' }],
  examples: {
    schemaIds: { Email: 'eml', EmailDetail: 'eml' },
    fields: Object.fromEntries(
      ['Email', 'EmailDetail'].flatMap((schema) =>
        Object.entries(EMAIL_EXAMPLE).map(([field, value]) => [`${schema}.${field}`, value]),
      ),
    ),
  },
  schemas: [...emailSchemas, ...emailLogSchemas, ...emailBounceSchemas],
  routes: [emailRoutes, emailLogRoutes, emailUnsubscribeRoutes, emailBounceRoutes],
  mcpTools: emailMcpTools,
  mcpCounts: emailMcpCounts,
  credentials: ({ db, secrets }) => [unsubscribeCredential(db, secrets)],
  events: [EmailSent, EmailFailed, EmailBounced],
  jobs: ({ db, config, secrets, log }: JobContext) => {
    const transports = openTransports(config);
    const timeoutMs = config.emailTimeoutMs ?? 15_000;
    return [
      {
        // Queued emails that are due: composed once, sent with their Message-ID, settled with their event.
        name: 'email.send',
        intervalMs: 5_000,
        async run() {
          await sendDueEmails({
            db,
            secrets,
            transports,
            origin: config.publicUrl ?? `http://${config.host ?? '127.0.0.1'}:${config.port ?? 3000}`,
            from: config.emailFrom ?? 'no-reply@agency-crm.localhost',
            leaseMs: emailLeaseMs(timeoutMs),
            ...(log === undefined ? {} : { log }),
          });
        },
        async stop() {
          transports.live?.close();
          transports.sandbox.close();
        },
      },
      {
        // The email log keeps what each email said (personal data) for EMAIL_LOG_RETENTION_DAYS.
        name: 'email.purge',
        intervalMs: 60 * 60_000,
        async run() {
          const days = config.emailLogRetentionDays ?? 30;
          await purgeOlderThan(db, { table: 'emails', column: 'created_at' }, days, { batchSize: 1_000 });
        },
      },
    ];
  },
});
