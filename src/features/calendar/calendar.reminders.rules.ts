// The rules of appointment reminders (issue 26 item 5, decision 0239), without I/O: which of the due
// reminders of an appointment go and which are skipped, and the variables a template is filled with.

/** The variables a reminder template may name. */
export const REMINDER_VARIABLES = ['firstName', 'agentName', 'date', 'time', 'address', 'manageUrl'];

/** A reminder that would reach the visitor less than this before the visit is skipped: too late to help. */
export const MIN_LEAD_MS = 10 * 60_000;

export type ReminderSkip =
  /** A shorter reminder is due too (after downtime): only the most recent one goes. */
  | 'SUPERSEDED'
  /** The appointment was booked after this reminder's time: the booking itself told them. */
  | 'BOOKED_INSIDE_WINDOW'
  | 'TOO_LATE'
  /** A test twin's appointments: nothing reaches real people in test mode. */
  | 'TEST_MODE'
  | 'NO_TEMPLATE'
  | 'NO_CONTACT';

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
