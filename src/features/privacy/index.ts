// Personal data handled the way EU agencies must (issue 21): erasure, access, and the inventory of
// where a person's data lives.
import { defineFeature } from '../../platform/features/manifest.ts';
import { privacyRoutes } from './privacy.routes.ts';
import { privacySchemas } from './privacy.schema.ts';

export { PERSONAL_DATA_PLACES, type DataPlace } from './privacy.inventory.ts';

/** The privacy feature's manifest (src/features.ts lists it). */
export const privacyFeature = defineFeature({
  name: 'privacy',
  schemas: privacySchemas,
  routes: [privacyRoutes],
});
