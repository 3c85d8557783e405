// The personal data the appointments feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';
import { handOverAppointments } from './appointments.handover.ts';

export const appointmentsPersonalData: PersonalData = {
  places: [
    {
      table: 'appointments',
      link: 'contact_id',
      personal: ['notes'],
      other: ['type', 'status', 'source'],
      onErase: 'UNLINKED_AND_REDACTED',
      note: "The agent's calendar stays: the appointment loses its contact, its notes are redacted.",
    },
  ],
  handover: { name: 'appointments', run: handOverAppointments },
};
