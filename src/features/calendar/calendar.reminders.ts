// Appointment reminders (issue 26 item 5, decisions 0239 and 0242): the worker finds the appointments
// whose reminders are due, decides each reminder once (a row per appointment, offset and start, written
// before anything is sent: two workers never both send it), and sends the one that still helps over the
// messaging channel with the organization's APPROVED template, by the conversation rules (consent, the
// 24-hour window: a template may go outside it). A decision is leased to the worker sending it: when
// that worker dies before the outcome is recorded, the next scan resumes the send if it still helps, with
// the same dedupe key (at least once: the platform or a receiver drops the repeat of a send that did go).
import type { Database } from '../../db/database.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { AppError } from '../../platform/errors/errors.ts';
import { findMessageTemplate, templateVariables } from '../messaging-setup/index.ts';
import { findAgentProfile } from '../agents/index.ts';
import { sendAsOrganization, type MessagingContext } from '../conversations/index.ts';
import { manageUrl } from '../appointments/index.ts';
import {
  MAX_SEND_ATTEMPTS,
  planReminders,
  REMINDER_LEASE_MS,
  reminderDedupeKey,
  resumeVerdict,
  visitWords,
  type ReminderPlan,
  type ReminderSkip,
} from './calendar.reminders.rules.ts';
import * as reminderStore from './calendar.reminders.store.ts';
import * as store from './calendar.store.ts';

/** Appointments looked at per scan. */
const BATCH = 100;

export interface ReminderDependencies {
  db: Database;
  messaging: MessagingContext;
  secrets: SecretBox;
  /** PUBLIC_URL: a template naming {{manageUrl}} needs it (the worker has no request to take it from). */
  publicUrl: string | undefined;
  /** How long a SENDING reminder is its worker's before another resumes it (default REMINDER_LEASE_MS). */
  leaseMs?: number;
}

export interface ReminderTally {
  sent: number;
  skipped: number;
  failed: number;
  /** Sends a crash had interrupted, taken over this run (their outcomes are counted above too). */
  resumed: number;
}

interface Target {
  key: reminderStore.ReminderKey;
  livemode: boolean;
  templateId: string;
  dedupeKey: string;
}

/**
 * One run of the job: first the reminders whose send a crash interrupted (SENDING past their lease),
 * resumed while still useful; then every appointment with reminders due at `now`, each decided and
 * recorded in its own transaction, and the ones to send sent after it (no transaction stays open while
 * the platform is called). Returns what happened to the reminders this run took on.
 */
export async function sendDueReminders(deps: ReminderDependencies, now = new Date()): Promise<ReminderTally> {
  const tally: ReminderTally = { sent: 0, skipped: 0, failed: 0, resumed: 0 };
  await resumeInterrupted(deps, now, tally);
  for (;;) {
    const due = await deps.db.systemTx((tx) => reminderStore.findDueReminders(tx, now, BATCH));
    for (const appointment of due) {
      const target = await decide(deps, appointment, now, tally);
      if (target) await send(deps, target, tally);
    }
    if (due.length < BATCH) return tally;
  }
}

/** Why a reminder that would go cannot, from the organization and the appointment: null when it can. */
function missing(
  settings: store.CalendarSettingsRow,
  appointment: { contactId: string | null },
): ReminderSkip | null {
  if (!settings.reminderChannels.includes('MESSAGING')) return 'MESSAGING_OFF';
  if (settings.liveOrganizationId !== null) return 'TEST_MODE';
  if (appointment.contactId === null) return 'NO_CONTACT';
  if (settings.reminderTemplateId === null) return 'NO_TEMPLATE';
  return null;
}

function targetOf(key: reminderStore.ReminderKey, settings: store.CalendarSettingsRow): Target {
  return {
    key,
    livemode: settings.liveOrganizationId === null,
    templateId: settings.reminderTemplateId as string,
    dedupeKey: reminderDedupeKey(key),
  };
}

/** Records every due reminder of one appointment: skipped ones with their reason, the one to send as SENDING. */
async function decide(
  deps: ReminderDependencies,
  appointment: reminderStore.DueReminders,
  now: Date,
  tally: ReminderTally,
): Promise<Target | null> {
  const { organizationId, appointmentId, startsAt } = appointment;
  const lockedUntil = new Date(now.getTime() + (deps.leaseMs ?? REMINDER_LEASE_MS));
  // eslint-disable-next-line no-restricted-syntax -- the reminders worker job: one appointment's organization, no request caller.
  return deps.db.tenantTx(organizationId, async (tx) => {
    const settings = await store.findSettings(tx, organizationId);
    const current = await reminderStore.contactOfAppointment(tx, organizationId, appointmentId);
    if (!settings || !current || current.startsAt.getTime() !== startsAt.getTime()) return null;
    const planned = planReminders(appointment.due, appointment, now.getTime());
    const plans: ReminderPlan[] = planned.map((plan) =>
      plan.skip === null ? { ...plan, skip: missing(settings, current) } : plan,
    );
    const claimed = await reminderStore.claimReminders(
      tx,
      plans.map((plan) => {
        const key = { organizationId, appointmentId, offsetMinutes: plan.offsetMinutes, startsAt };
        return plan.skip === null
          ? { ...key, status: 'SENDING', dedupeKey: reminderDedupeKey(key), lockedUntil, attempts: 1 }
          : { ...key, status: 'SKIPPED', reason: plan.skip };
      }),
    );
    // The email reminder (issue 41) goes by the same plan, queued once with the decision: the email
    // worker sends it (test mode: into the sandbox), whatever becomes of the message.
    const byEmail = settings.reminderChannels.includes('EMAIL') && current.contactId !== null;
    for (const plan of planned) {
      if (byEmail && plan.skip === null && claimed.includes(plan.offsetMinutes)) {
        await reminderStore.queueReminderEmail(tx, organizationId, appointmentId, plan.offsetMinutes);
      }
    }
    let target: Target | null = null;
    for (const plan of plans) {
      if (!claimed.includes(plan.offsetMinutes)) continue;
      if (plan.skip !== null) tally.skipped += 1;
      else
        target = targetOf(
          { organizationId, appointmentId, offsetMinutes: plan.offsetMinutes, startsAt },
          settings,
        );
    }
    return target;
  });
}

/**
 * Takes over the reminders left SENDING past their lease, one at a time (each with a whole lease for
 * its send), and sends the ones still useful as a first send would go.
 */
async function resumeInterrupted(deps: ReminderDependencies, now: Date, tally: ReminderTally): Promise<void> {
  const leaseMs = deps.leaseMs ?? REMINDER_LEASE_MS;
  for (;;) {
    const [claimed] = await deps.db.systemTx((tx) =>
      reminderStore.claimInterruptedReminders(tx, now, leaseMs, 1),
    );
    if (!claimed) return;
    tally.resumed += 1;
    const target = await recheck(deps.db, claimed, now, tally);
    if (target) await send(deps, target, tally);
  }
}

/**
 * Whether a reminder taken over is still to be sent (the rules of a first send, and resumeVerdict's):
 * the target, or null with the reminder settled SKIPPED with why (FAILED after MAX_SEND_ATTEMPTS).
 */
async function recheck(
  db: Database,
  reminder: reminderStore.ClaimedReminder,
  now: Date,
  tally: ReminderTally,
): Promise<Target | null> {
  const { attempts, ...key } = reminder;
  const { organizationId, appointmentId } = key;
  // eslint-disable-next-line no-restricted-syntax -- the reminders worker job: one appointment's organization, no request caller.
  return db.tenantTx(organizationId, async (tx) => {
    const settings = await store.findSettings(tx, organizationId);
    // Deleting an appointment deletes its reminders: both are there while the row is.
    const current = await reminderStore.contactOfAppointment(tx, organizationId, appointmentId);
    const skip =
      settings && current
        ? (resumeVerdict(key, current, settings.reminderOffsetsMinutes, now.getTime()) ??
          missing(settings, current))
        : 'NOT_ACTIVE';
    if (skip !== null) {
      await reminderStore.settleReminder(tx, key, { status: 'SKIPPED', reason: skip, messageId: null });
      tally.skipped += 1;
      return null;
    }
    if (attempts > MAX_SEND_ATTEMPTS) {
      // Each start of this send ended its worker: trying again would only repeat that.
      const reason = `interrupted ${attempts - 1} times before its outcome was recorded: not sent again`;
      await reminderStore.settleReminder(tx, key, { status: 'FAILED', reason, messageId: null });
      tally.failed += 1;
      return null;
    }
    return targetOf(key, settings as store.CalendarSettingsRow);
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

/**
 * Sends one reminder and records how it went: SENT with the message (in the transaction that records
 * the message sent, so a crash cannot separate them), SKIPPED by a rule, or FAILED.
 */
async function send(deps: ReminderDependencies, target: Target, tally: ReminderTally): Promise<void> {
  const { organizationId } = target.key;
  const { dedupeKey } = target;
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
        {
          idempotencyKey: dedupeKey,
          onSent: async (tx, sent) => {
            await reminderStore.settleReminder(tx, target.key, {
              status: 'SENT',
              reason: null,
              messageId: sent.id,
              dedupeKey,
            });
          },
        },
      );
      outcome = { status: 'SENT', reason: null, messageId: message.id };
    } catch (error) {
      // The conversation rules refused it (consent withdrawn, template not APPROVED, no number: a 4xx),
      // or the platform failed (502: the message is FAILED in the conversation). Never retried: only a
      // send whose outcome was never recorded (its worker died) is resumed.
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
  if (outcome.status !== 'SENT') {
    const settled = { ...outcome, dedupeKey };
    // eslint-disable-next-line no-restricted-syntax -- the reminders worker job: one appointment's organization, no request caller.
    await deps.db.tenantTx(organizationId, (tx) => reminderStore.settleReminder(tx, target.key, settled));
  }
  if (outcome.status === 'SENT') tally.sent += 1;
  else if (outcome.status === 'SKIPPED') tally.skipped += 1;
  else tally.failed += 1;
}
