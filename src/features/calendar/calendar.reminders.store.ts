// The reminders' SQL (decisions 0239, 0242): due appointments across organizations, the decisions
// recorded per appointment, offset and start, their leases and outcomes.
import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import { appointmentReminders, appointments } from '../../db/schema.ts';

/** An appointment with reminders due, across organizations (the worker's scan, a system transaction). */
export interface DueReminders {
  organizationId: string;
  appointmentId: string;
  startsAt: Date;
  createdAt: Date;
  /** Offsets (minutes) whose time has come and that were never decided. */
  due: number[];
}

/**
 * Active appointments that start within `now`..`now + 7 days` and have a reminder offset whose time
 * has come with no decision recorded for their current start, soonest first. Reads the partial index
 * on active appointments' starts_at.
 */
export async function findDueReminders(tx: Tx, now: Date, limit: number): Promise<DueReminders[]> {
  const rows = await queryRows<{
    organization_id: string;
    id: string;
    starts_at: Date | string;
    created_at: Date | string;
    due: number[] | string;
  }>(
    tx,
    sql`SELECT a.organization_id, a.id, a.starts_at, a.created_at, array_agg(o.minutes ORDER BY o.minutes) AS due
        FROM appointments a
        JOIN organizations org ON org.id = a.organization_id
        CROSS JOIN LATERAL unnest(org.reminder_offsets_minutes) AS o(minutes)
        WHERE a.status IN ('SCHEDULED', 'CONFIRMED')
          AND a.starts_at > ${now}
          AND a.starts_at <= ${now}::timestamptz + interval '7 days'
          AND a.starts_at - make_interval(mins => o.minutes) <= ${now}
          AND NOT EXISTS (
            SELECT 1 FROM appointment_reminders r
            WHERE r.organization_id = a.organization_id AND r.appointment_id = a.id
              AND r.offset_minutes = o.minutes AND r.starts_at = a.starts_at)
        GROUP BY a.organization_id, a.id, a.starts_at, a.created_at
        ORDER BY a.starts_at
        LIMIT ${limit}`,
  );
  return rows.map((row) => ({
    organizationId: row.organization_id,
    appointmentId: row.id,
    startsAt: new Date(row.starts_at),
    createdAt: new Date(row.created_at),
    due: (typeof row.due === 'string' ? row.due.replace(/[{}]/g, '').split(',') : row.due).map(Number),
  }));
}

/**
 * Records decisions on an appointment's reminders, each at most once (the primary key: appointment,
 * offset, start): the offsets this call recorded, fewer when another worker decided first.
 */
export async function claimReminders(
  tx: Tx,
  rows: (typeof appointmentReminders.$inferInsert)[],
): Promise<number[]> {
  if (rows.length === 0) return [];
  const inserted = await tx
    .insert(appointmentReminders)
    .values(rows)
    .onConflictDoNothing()
    .returning({ offsetMinutes: appointmentReminders.offsetMinutes });
  return inserted.map((row) => row.offsetMinutes);
}

export interface ReminderKey {
  organizationId: string;
  appointmentId: string;
  offsetMinutes: number;
  startsAt: Date;
}

/**
 * The outcome of a reminder that was SENDING; false when it no longer was (the first outcome recorded
 * stands: a send that outlived its lease does not overwrite the one that resumed it).
 */
export async function settleReminder(
  tx: Tx,
  key: ReminderKey,
  outcome: {
    status: 'SENT' | 'SKIPPED' | 'FAILED';
    reason: string | null;
    messageId: string | null;
    dedupeKey?: string;
  },
): Promise<boolean> {
  const rows = await tx
    .update(appointmentReminders)
    .set({ ...outcome, lockedUntil: null })
    .where(
      and(
        eq(appointmentReminders.organizationId, key.organizationId),
        eq(appointmentReminders.appointmentId, key.appointmentId),
        eq(appointmentReminders.offsetMinutes, key.offsetMinutes),
        eq(appointmentReminders.startsAt, key.startsAt),
        eq(appointmentReminders.status, 'SENDING'),
      ),
    )
    .returning({ status: appointmentReminders.status });
  return rows.length > 0;
}

/** A SENDING reminder whose lease this worker took over, with how many sends it has now started. */
export interface ClaimedReminder extends ReminderKey {
  attempts: number;
}

/**
 * Takes over up to `limit` SENDING reminders whose lease ended by `now` (their worker died between the
 * decision and the outcome), across organizations, for `leaseMs` more, counting the attempt. FOR UPDATE
 * SKIP LOCKED and the lease: two workers never take the same one. Reads the partial index on SENDING
 * rows.
 */
export async function claimInterruptedReminders(
  tx: Tx,
  now: Date,
  leaseMs: number,
  limit: number,
): Promise<ClaimedReminder[]> {
  const rows = await queryRows<{
    organization_id: string;
    appointment_id: string;
    offset_minutes: number;
    starts_at: Date | string;
    attempts: number;
  }>(
    tx,
    sql`WITH picked AS (
          SELECT organization_id, appointment_id, offset_minutes, starts_at FROM appointment_reminders
          WHERE status = 'SENDING' AND (locked_until IS NULL OR locked_until <= ${now})
          ORDER BY locked_until NULLS FIRST
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE appointment_reminders r
        SET locked_until = ${now}::timestamptz + ${leaseMs} * interval '1 millisecond', attempts = r.attempts + 1
        FROM picked p
        WHERE r.organization_id = p.organization_id AND r.appointment_id = p.appointment_id
          AND r.offset_minutes = p.offset_minutes AND r.starts_at = p.starts_at
        RETURNING r.organization_id, r.appointment_id, r.offset_minutes, r.starts_at, r.attempts`,
  );
  return rows.map((row) => ({
    organizationId: row.organization_id,
    appointmentId: row.appointment_id,
    offsetMinutes: Number(row.offset_minutes),
    startsAt: new Date(row.starts_at),
    attempts: Number(row.attempts),
  }));
}

/** The contact an appointment is with (id), or null. */
export async function contactOfAppointment(tx: Tx, organizationId: string, appointmentId: string) {
  const rows = await tx
    .select({
      contactId: appointments.contactId,
      status: appointments.status,
      startsAt: appointments.startsAt,
    })
    .from(appointments)
    .where(and(eq(appointments.organizationId, organizationId), eq(appointments.id, appointmentId)))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * Queues the email reminder of an appointment at an offset (issue 41), once per version of the visit:
 * the row the email worker sends (migration 0037's agency_queue_email; its revision is the SEQUENCE
 * times 16,384 plus the offset, as REMINDER_REVISION_BASE in the email feature says).
 */
export async function queueReminderEmail(
  tx: Tx,
  organizationId: string,
  appointmentId: string,
  offsetMinutes: number,
): Promise<void> {
  await queryRows(
    tx,
    sql`SELECT agency_queue_email(a.organization_id, 'VISIT_REMINDER', a.id, a.sequence * 16384 + ${offsetMinutes}::int)
        FROM appointments a WHERE a.organization_id = ${organizationId} AND a.id = ${appointmentId}`,
  );
}
