// The rules of appointment reminders (issue 26 item 5, decision 0239), without I/O: which of the due
// reminders of an appointment go and which are skipped, whether an interrupted one is still worth
// resuming (decision 0242), and the variables a template is filled with.

/** The variables a reminder template may name. */
export const REMINDER_VARIABLES = ['firstName', 'agentName', 'date', 'time', 'address', 'manageUrl'];

/** A reminder that would reach the visitor less than this before the visit is skipped: too late to help. */
export const MIN_LEAD_MS = 10 * 60_000;

/** The appointment statuses that are reminded. */
export const REMINDED_STATUSES: readonly string[] = ['SCHEDULED', 'CONFIRMED'];

/**
 * A SENDING reminder is its worker's for this long; past it the worker is taken for dead and the next
 * scan resumes the send. Longer than the slowest send allowed (`reminderLeaseMs`).
 */
export const REMINDER_LEASE_MS = 2 * 60_000;

/** Starts of one reminder's send: after this many a crash-looping reminder is FAILED, not tried again. */
export const MAX_SEND_ATTEMPTS = 3;

/**
 * The lease for the platform's time limit (MESSAGING_TIMEOUT_MS; none: the default's): two minutes, or
 * more when a send may take longer (tried twice, each up to `timeoutMs`), so that a slow send is never
 * taken for a dead one.
 */
export function reminderLeaseMs(timeoutMs: number | undefined): number {
  return Math.max(REMINDER_LEASE_MS, 2 * (timeoutMs ?? 0) + 30_000);
}

/**
 * The key a reminder is sent with, the same for every attempt (a resumed send after a crash): the
 * platform's idempotency key and `message.sent`'s `dedupeKey`, so either can drop a repeat.
 */
export function reminderDedupeKey(key: { appointmentId: string; offsetMinutes: number; startsAt: Date }) {
  return `reminder:${key.appointmentId}:${key.offsetMinutes}:${key.startsAt.toISOString()}`;
}

export type ReminderSkip =
  /** A shorter reminder is due too (after downtime): only the most recent one goes. */
  | 'SUPERSEDED'
  /** The appointment was booked after this reminder's time: the booking itself told them. */
  | 'BOOKED_INSIDE_WINDOW'
  | 'TOO_LATE'
  /** The organization's reminders go by email only (`reminderChannels`). */
  | 'MESSAGING_OFF'
  /** A test twin's appointments: nothing reaches real people in test mode. */
  | 'TEST_MODE'
  | 'NO_TEMPLATE'
  | 'NO_CONTACT'
  /** Resuming an interrupted send: the appointment was cancelled (or is done) meanwhile. */
  | 'NOT_ACTIVE'
  /** Resuming an interrupted send: the appointment moved; its new start has reminders of its own. */
  | 'MOVED';

export interface ReminderPlan {
  offsetMinutes: number;
  /** null: send it. */
  skip: ReminderSkip | null;
}

/**
 * What to do with the due reminders of one appointment (`due`: offsets whose time has come and that
 * were never decided): at most one is sent, the shortest (the most recent), and only when it still
 * helps: the visit is at least MIN_LEAD_MS away, and the appointment existed at the reminder's time
 * (a visit booked 3 h ahead gets no 24 h reminder; a moved one is reminded of its new time). The longer ones are SUPERSEDED: after downtime a
 * visitor gets one late reminder, never a burst.
 */
export function planReminders(
  due: readonly number[],
  appointment: { startsAt: Date; createdAt: Date },
  now: number,
): ReminderPlan[] {
  const shortest = Math.min(...due);
  return [...due]
    .sort((a, b) => b - a)
    .map((offsetMinutes) => {
      if (offsetMinutes !== shortest) return { offsetMinutes, skip: 'SUPERSEDED' as const };
      const at = appointment.startsAt.getTime() - offsetMinutes * 60_000;
      if (appointment.createdAt.getTime() > at)
        return { offsetMinutes, skip: 'BOOKED_INSIDE_WINDOW' as const };
      if (appointment.startsAt.getTime() - now < MIN_LEAD_MS)
        return { offsetMinutes, skip: 'TOO_LATE' as const };
      return { offsetMinutes, skip: null };
    });
}

/** The date and time of the visit as the visitor reads them: in the agent's zone and the agency's language. */
export function visitWords(startsAt: Date, zone: string, language: string): { date: string; time: string } {
  const date = new Intl.DateTimeFormat(language, {
    timeZone: zone,
    weekday: 'long',
    day: 'numeric',
    month: 'long',
  }).format(startsAt);
  const time = new Intl.DateTimeFormat(language, {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(startsAt);
  return { date, time };
}

/**
 * Whether a reminder whose send a crash interrupted (left SENDING past its lease) is still worth
 * sending at `now`, or why not: the appointment is still reminded (SCHEDULED or CONFIRMED), at the
 * start the reminder was for, at least MIN_LEAD_MS away, and no shorter offset is due (that one is
 * sent instead: one late reminder, never a burst, as after downtime).
 */
export function resumeVerdict(
  reminder: { offsetMinutes: number; startsAt: Date },
  appointment: { status: string; startsAt: Date },
  offsets: readonly number[],
  now: number,
): ReminderSkip | null {
  if (!REMINDED_STATUSES.includes(appointment.status)) return 'NOT_ACTIVE';
  if (appointment.startsAt.getTime() !== reminder.startsAt.getTime()) return 'MOVED';
  const start = reminder.startsAt.getTime();
  if (start - now < MIN_LEAD_MS) return 'TOO_LATE';
  const shorterDue = offsets.some((o) => o < reminder.offsetMinutes && start - o * 60_000 <= now);
  return shorterDue ? 'SUPERSEDED' : null;
}
