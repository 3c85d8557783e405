// The personal data the console feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const consolePersonalData: PersonalData = {
  places: [
    {
      table: 'console_links',
      link: null,
      personal: [],
      other: ['token_hash'],
      onErase: 'NONE',
      note: 'One-time console links (hashes).',
    },
    {
      table: 'console_sessions',
      link: null,
      personal: [],
      other: ['token_hash'],
      onErase: 'NONE',
      note: 'Console sessions (hashes).',
    },
  ],
};
