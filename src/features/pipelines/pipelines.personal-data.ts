// The personal data the pipelines feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const pipelinesPersonalData: PersonalData = {
  places: [
    {
      table: 'pipeline_stages',
      link: null,
      personal: [],
      other: ['name', 'kind'],
      onErase: 'NONE',
      note: 'Settings.',
    },
    { table: 'pipelines', link: null, personal: [], other: ['name'], onErase: 'NONE', note: 'Settings.' },
  ],
};
