// Bulk property import by code (the CLI's `import properties` and the admin endpoint).
import { defineFeature } from '../../platform/features/manifest.ts';
import { propertiesImportRoutes } from './property-import.routes.ts';

export type { ImportResult, ImportRowError } from './property-import.schema.ts';
export { importProperties } from './property-import.service.ts';

/** The property-import feature's manifest (src/features.ts lists it). */
export const propertyImportFeature = defineFeature({
  name: 'property-import',
  routes: [propertiesImportRoutes],
});
