// The personal data the api-keys feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const apiKeysPersonalData: PersonalData = {
  places: [
    {
      table: 'api_keys',
      link: null,
      personal: [],
      other: ['type', 'mode', 'key_hash', 'key_prefix', 'name', 'scopes', 'status'],
      onErase: 'NONE',
      note: 'Keys.',
    },
  ],
};
