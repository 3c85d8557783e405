// Syndication feeds: the published stock as Kyero v3 XML and JSON at token URLs (docs/feeds.md).
import { defineFeature } from '../../platform/features/manifest.ts';
import { feedsRoutes } from './feeds.routes.ts';
import { feedsSchemas } from './feeds.schema.ts';
import { feedCredential } from './feeds.service.ts';

/** The feeds feature's manifest (src/features.ts lists it). */
export const feedsFeature = defineFeature({
  name: 'feeds',
  schemas: feedsSchemas,
  routes: [feedsRoutes],
  credentials: ({ db }) => [feedCredential(db)],
});
