// The agency's calendar (issue 26): time zone, public holidays and closures, agents' time off, and
// appointments as iCalendar (one file, agents' subscription URLs).
import type { Config } from '../../config.ts';
import { calendarPersonalData } from './calendar.personal-data.ts';
import { defineFeature, type JobContext } from '../../platform/features/manifest.ts';
import { messagingContext } from '../conversations/index.ts';
import { sendDueReminders } from './calendar.reminders.ts';
import { reminderLeaseMs } from './calendar.reminders.rules.ts';
import { calendarCredential } from './calendar.feeds.ts';
import { calendarFeedsRoutes } from './calendar.feeds.routes.ts';
import { calendarRoutes } from './calendar.routes.ts';
import { calendarFeedSchemas, calendarSchemas } from './calendar.schema.ts';

export {
  blockedTimes,
  createClosure,
  organizationTimeZone,
  updateCalendarSettings,
  type BlockedTimes,
} from './calendar.service.ts';
export { sendDueReminders, type ReminderTally } from './calendar.reminders.ts';
export { invitationOf, type InvitationParties } from './calendar.ics.ts';
export {
  findCalendarAppointment,
  findSettings as findCalendarSettings,
  type CalendarAppointment,
} from './calendar.store.ts';
export { visitWords } from './calendar.reminders.rules.ts';

/** The calendar feature's manifest (src/features.ts lists it). */
export const calendarFeature = defineFeature({
  name: 'calendar',
  personalData: calendarPersonalData,
  examples: { ids: { reminderTemplateId: 'tpl' } },
  tags: [
    {
      name: 'Calendar',
      description:
        "The agency's calendar: time zone, public holidays and closures, agents' time off, reminders",
    },
    {
      name: 'Admin: calendar',
      description: "An organization's time zone, holidays, closures and agents' time off (admin)",
    },
  ],
  schemas: [...calendarSchemas, ...calendarFeedSchemas],
  routes: [calendarRoutes, calendarFeedsRoutes],
  credentials: ({ db }) => [calendarCredential(db)],
  jobs: ({ db, config, secrets }: JobContext) => [
    {
      // Appointment reminders that are due (24 h and 2 h before by default), each decided once; first
      // the sends a crashed worker left SENDING past their lease, resumed while still useful.
      name: 'appointments.reminders',
      intervalMs: 60_000,
      async run() {
        await sendDueReminders({
          db,
          messaging: messagingContext({ config: config as Config, clock: () => new Date() }),
          secrets,
          publicUrl: config.publicUrl,
          leaseMs: reminderLeaseMs(config.messagingTimeoutMs),
        });
      },
    },
  ],
});
