// A person's data as a whole (issue 21): erasure, access (export) and merging duplicates, all driven
// by the inventory of where a contact's data lives.
import { privacyPersonalData } from './privacy.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { ContactMerged } from './privacy.events.ts';
import { privacyRoutes } from './privacy.routes.ts';
import { privacySchemas } from './privacy.schema.ts';

export { PERSONAL_DATA_PLACES, type DataPlace } from '../../platform/privacy/personal-data.ts';
export { mergeContacts } from './privacy.service.ts';

/** The privacy feature's manifest (src/features.ts lists it). */
export const privacyFeature = defineFeature({
  name: 'privacy',
  personalData: privacyPersonalData,
  examples: { ids: { sourceContactId: 'ct' } },
  schemas: privacySchemas,
  routes: [privacyRoutes],
  events: [ContactMerged],
});
