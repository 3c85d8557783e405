// The personal data the calendar feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const calendarPersonalData: PersonalData = {
  places: [
    {
      table: 'agent_time_off',
      link: null,
      personal: [],
      other: ['reason'],
      onErase: 'NONE',
      note: "When an agent is away, and why in the agency's words (staff, not contacts).",
    },
    {
      table: 'appointment_reminders',
      link: null,
      personal: [],
      other: ['status', 'reason', 'message_id', 'dedupe_key'],
      onErase: 'NONE',
      note: "Which reminders of an appointment went (the message itself is in the contact's conversation).",
    },
    {
      table: 'calendar_feeds',
      link: null,
      personal: [],
      other: ['token_hash', 'token_prefix', 'agent_id'],
      onErase: 'NONE',
      note: "Agents' calendar subscription URLs, as their token's hash and first characters.",
    },
    {
      table: 'closures',
      link: null,
      personal: [],
      other: ['name'],
      onErase: 'NONE',
      note: "The agency's closed days.",
    },
  ],
};
