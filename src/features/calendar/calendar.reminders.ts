// Appointment reminders (issue 26 item 5, decision 0239): the worker finds the appointments whose
// reminders are due, decides each reminder once (a row per appointment, offset and start, written
// before anything is sent: never twice, even with two workers or a crash), and sends the one that
// still helps over the messaging channel with the organization's APPROVED template, by the
// conversation rules (consent, the 24-hour window: a template may go outside it).
import type { Database } from '../../db/database.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { AppError } from '../../platform/errors/errors.ts';
import { findMessageTemplate, templateVariables } from '../messaging-setup/index.ts';
import { findAgentProfile } from '../agents/index.ts';
import { sendAsOrganization, type MessagingContext } from '../conversations/index.ts';
import { manageUrl } from '../appointments/index.ts';
import { planReminders, visitWords, type ReminderPlan } from './calendar.reminders.rules.ts';
import * as store from './calendar.store.ts';

/** Appointments looked at per scan. */
const BATCH = 100;

export interface ReminderDependencies {
  db: Database;
  messaging: MessagingContext;
  secrets: SecretBox;
  /** PUBLIC_URL: a template naming {{manageUrl}} needs it (the worker has no request to take it from). */
  publicUrl: string | undefined;
}

export interface ReminderTally {
  sent: number;
  skipped: number;
  failed: number;
}

interface Target {
  key: { organizationId: string; appointmentId: string; offsetMinutes: number; startsAt: Date };
  livemode: boolean;
  templateId: string;
}

/**
 * One scan: every appointment with reminders due at `now`, each decided and recorded in its own
 * transaction, then the ones to send sent after it (no transaction stays open while the platform is
 * called). Returns what happened to the reminders this scan decided.
 */
export async function sendDueReminders(deps: ReminderDependencies, now = new Date()): Promise<ReminderTally> {
  const tally: ReminderTally = { sent: 0, skipped: 0, failed: 0 };
  for (;;) {
    const due = await deps.db.systemTx((tx) => store.findDueReminders(tx, now, BATCH));
    for (const appointment of due) {
      const target = await decide(deps.db, appointment, now, tally);
      if (target) await send(deps, target, tally);
    }
    if (due.length < BATCH) return tally;
  }
}

/** Records every due reminder of one appointment: skipped ones with their reason, the one to send as SENDING. */
async function decide(
  db: Database,
  appointment: store.DueReminders,
  now: Date,
  tally: ReminderTally,
): Promise<Target | null> {
  const { organizationId, appointmentId, startsAt } = appointment;
  // eslint-disable-next-line no-restricted-syntax -- the reminders worker job: one appointment's organization, no request caller.
  return db.tenantTx(organizationId, async (tx) => {
    const settings = await store.findSettings(tx, organizationId);
    const current = await store.contactOfAppointment(tx, organizationId, appointmentId);
    if (!settings || !current || current.startsAt.getTime() !== startsAt.getTime()) return null;
    const plans: ReminderPlan[] = planReminders(appointment.due, appointment, now.getTime()).map((plan) => {
      if (plan.skip !== null) return plan;
      if (settings.liveOrganizationId !== null) return { ...plan, skip: 'TEST_MODE' };
      if (current.contactId === null) return { ...plan, skip: 'NO_CONTACT' };
      if (settings.reminderTemplateId === null) return { ...plan, skip: 'NO_TEMPLATE' };
      return plan;
    });
    const claimed = await store.claimReminders(
      tx,
      plans.map((plan) => ({
        organizationId,
        appointmentId,
        offsetMinutes: plan.offsetMinutes,
        startsAt,
        status: plan.skip === null ? 'SENDING' : 'SKIPPED',
        reason: plan.skip,
      })),
    );
    let target: Target | null = null;
    for (const plan of plans) {
      if (!claimed.includes(plan.offsetMinutes)) continue;
      if (plan.skip !== null) tally.skipped += 1;
      else {
        target = {
          key: { organizationId, appointmentId, offsetMinutes: plan.offsetMinutes, startsAt },
          livemode: settings.liveOrganizationId === null,
          templateId: settings.reminderTemplateId as string,
        };
      }
    }
    return target;
  });
}

/** The template's variables for this appointment, or the reason it cannot be filled. */
async function variablesFor(deps: ReminderDependencies, target: Target) {
  const { organizationId, appointmentId } = target.key;
  // eslint-disable-next-line no-restricted-syntax -- the reminders worker job: one appointment's organization, no request caller.
  return deps.db.readTx(organizationId, async (tx) => {
    const template = await findMessageTemplate(tx, organizationId, target.templateId);
    const row = await store.findCalendarAppointment(tx, organizationId, appointmentId);
    const settings = await store.findSettings(tx, organizationId);
    if (!template || !row || !settings) return { skip: 'NO_TEMPLATE' } as const;
    const agent = await findAgentProfile(tx, organizationId, row.agentId);
    const zone = agent?.booking?.timezone ?? settings.timezone;
    const words = visitWords(row.startsAt, zone, settings.defaultLanguage);
    const values: Record<string, string | null> = {
      firstName: row.contactFirstName,
      agentName: agent?.fullName ?? null,
      date: words.date,
      time: words.time,
      address: [row.propertyAddress, row.propertyCity].filter(Boolean).join(', ') || null,
      manageUrl:
        deps.publicUrl === undefined
          ? null
          : manageUrl(deps.secrets, deps.publicUrl, organizationId, appointmentId),
    };
    const variables: Record<string, string> = {};
    for (const name of templateVariables(template.body)) {
      const value = values[name];
      if (value === null || value === undefined) return { skip: `NO_VALUE_FOR_${name}` } as const;
      variables[name] = value;
    }
    return { contactId: row.contactId, variables };
  });
}

/** Sends one reminder and records how it went (SENT with the message, SKIPPED by a rule, FAILED). */
async function send(deps: ReminderDependencies, target: Target, tally: ReminderTally): Promise<void> {
  const { organizationId, appointmentId, offsetMinutes, startsAt } = target.key;
  let outcome: { status: 'SENT' | 'SKIPPED' | 'FAILED'; reason: string | null; messageId: string | null };
  const filled = await variablesFor(deps, target);
  if ('skip' in filled) {
    outcome = { status: 'SKIPPED', reason: filled.skip ?? null, messageId: null };
  } else if (filled.contactId === null) {
    outcome = { status: 'SKIPPED', reason: 'NO_CONTACT', messageId: null };
  } else {
    try {
      const message = await sendAsOrganization(
        deps.db,
        deps.messaging,
        { id: organizationId, livemode: target.livemode },
        filled.contactId,
        { templateId: target.templateId, variables: filled.variables },
        `reminder:${appointmentId}:${offsetMinutes}:${startsAt.toISOString()}`,
      );
      outcome = { status: 'SENT', reason: null, messageId: message.id };
    } catch (error) {
      // The conversation rules refused it (consent withdrawn, template not APPROVED, no number: a 4xx),
      // or the platform failed (502: the message is FAILED in the conversation). Never retried.
      const refused = error instanceof AppError && error.statusCode < 500;
      const messageId =
        error instanceof AppError ? ((error.extra?.messageId as string | undefined) ?? null) : null;
      outcome = {
        status: refused ? 'SKIPPED' : 'FAILED',
        reason: (error instanceof Error ? error.message : String(error)).slice(0, 500),
        messageId,
      };
    }
  }
  // eslint-disable-next-line no-restricted-syntax -- the reminders worker job: one appointment's organization, no request caller.
  await deps.db.tenantTx(organizationId, (tx) => store.settleReminder(tx, target.key, outcome));
  if (outcome.status === 'SENT') tally.sent += 1;
  else if (outcome.status === 'SKIPPED') tally.skipped += 1;
  else tally.failed += 1;
}
