// The demo agency's calendar (issue 26, docs/booking.md): Málaga's time zone and Andalusia's public
// holidays, a summer closure, reminders with the visit_reminder template and by email, and the agency's
// email sender (issue 41).
import type { Database } from '../../db/database.ts';
import { operatorCallerOf } from '../../platform/auth/credentials.ts';
import { createClosure, updateCalendarSettings } from '../calendar/index.ts';
import { updateEmailSettings } from '../email/index.ts';

export async function seedDemoCalendar(
  db: Database,
  organizationId: string,
  reminderTemplateId: string,
  now = new Date(),
): Promise<void> {
  const operator = await operatorCallerOf(db, organizationId);
  await updateCalendarSettings(
    db,
    operator,
    {
      timezone: 'Europe/Madrid',
      holidays: { country: 'ES', region: 'AN' },
      reminderTemplateId,
      reminderChannels: ['MESSAGING', 'EMAIL'],
    },
    'path.orgId',
  );
  await updateEmailSettings(db, operator, {
    senderName: 'Demo Realty Málaga',
    replyTo: 'hola@demo-realty.example',
    alertAddress: 'hola@demo-realty.example',
  });
  // The Feria de Málaga week of the next August: the agency closes.
  const year = now.getUTCMonth() >= 7 ? now.getUTCFullYear() + 1 : now.getUTCFullYear();
  await createClosure(db, operator, {
    startDate: `${year}-08-17`,
    endDate: `${year}-08-21`,
    name: 'Feria de Málaga',
  });
}
