// The personal data the event-log feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const eventLogPersonalData: PersonalData = {
  places: [
    { table: 'event_sequences', link: null, personal: [], other: [], onErase: 'NONE', note: 'Counters.' },
  ],
};
