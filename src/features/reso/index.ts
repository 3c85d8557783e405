// RESO Web API: the agency's listings as RESO Data Dictionary 2.0 Property records (docs/reso.md).
import { defineFeature } from '../../platform/features/manifest.ts';
import { resoPersonalData } from './reso.personal-data.ts';
import { resoRoutes } from './reso.routes.ts';
import { ResoODataErrorSchema } from './reso.documents.schema.ts';
import { ResoLookupSchema } from './reso.lookups.routes.ts';
import { resoSchemas } from './reso.schema.ts';

/** The RESO feature's manifest (src/features.ts lists it). */
export const resoFeature = defineFeature({
  name: 'reso',
  schemas: [...resoSchemas, ResoLookupSchema, ResoODataErrorSchema],
  routes: [resoRoutes],
  personalData: resoPersonalData,
});
