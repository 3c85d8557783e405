// Properties: the portal listing and detail, and the back office.
import { propertiesPersonalData } from './properties.personal-data.ts';
import { CONFIG_DEFAULTS } from '../../config.ts';
import { defineFeature, type JobContext } from '../../platform/features/manifest.ts';
import { runPhotoProbes } from './properties.photos.probes.ts';
import {
  PropertyCreated,
  PropertyDeleted,
  PropertyPriceChanged,
  PropertyRemoved,
  PropertyStatusChanged,
  PropertyUpdated,
} from './properties.events.ts';
import { propertiesMcpTools, propertiesMcpCounts } from './properties.mcp.ts';
import { listingsRoutes } from './properties.listings.routes.ts';
import { listingsSchemas } from './properties.listings.schema.ts';
import { photosRoutes } from './properties.photos.routes.ts';
import { photosSchemas } from './properties.photos.schema.ts';
import { propertiesRoutes } from './properties.routes.ts';
import { propertiesSchemas } from './properties.schema.ts';

export { PropertyCreated, PropertyUpdated } from './properties.events.ts';
export { recordPortalRemoval } from './properties.removal.ts';
export { statusProblem } from './properties.lifecycle.ts';
export { recordPropertyChanges } from './properties.writes.ts';
export {
  AMENITIES,
  CreatePropertyBodySchema,
  PROPERTY_TYPES,
  TRANSACTION_TYPES,
  type Amenity,
  type CreatePropertyBody,
  type PropertyStatus,
  type PropertyType,
  type TransactionType,
  propertiesSchemas,
} from './properties.schema.ts';
export type { PortalListQuery } from './properties.portal.schema.ts';
export {
  eventProperty,
  isPropertyOf,
  propertyColumns,
  requirePortalProperty,
  type PropertyColumns,
} from './properties.service.ts';
export { runPhotoProbes, type ProbeSettings } from './properties.photos.probes.ts';
export { feedBatch, feedPhoto, type FeedListing, type FeedPosition } from './properties.feed.ts';
export { searchPortalProperties } from './properties.portal.ts';
export type { NewProperty } from './properties.store.ts';

/** The properties feature's manifest (src/features.ts lists it). */
export const propertiesFeature = defineFeature({
  name: 'properties',
  personalData: propertiesPersonalData,
  scopes: [
    { name: 'listings:read', description: "reads the agency's own listings, every status" },
    {
      name: 'listings:write',
      description: "creates and changes the agency's listings and photos (support approval)",
      approval: true,
    },
  ],
  tags: [
    {
      name: 'Listings',
      description: "The agency's own listings: every status, the lifecycle, price and status history",
    },
    {
      name: 'Admin: properties',
      description: 'Listings with internal fields, publication and CSV/JSON import (admin)',
    },
  ],
  examples: {
    ids: {
      userId: 'agt',
    },
    schemaIds: {
      PropertyAgent: 'agt',
    },
    fields: {
      'AdminProperty.code': 'MAL-0042',
      'PortalProperty.code': 'MAL-0042',
      title: 'Sea view flat in Málaga',
      city: 'Málaga',
      neighborhood: 'El Limonar',
      address: 'Calle Larios 5',
      zipCode: '29015',
      internalNotes: 'The owner is open to offers.',
      language: 'es',
      caption: 'Living room',
    },
  },
  schemas: [...propertiesSchemas, ...listingsSchemas, ...photosSchemas],
  routes: [propertiesRoutes, listingsRoutes, photosRoutes],
  mcpTools: propertiesMcpTools,
  mcpCounts: propertiesMcpCounts,
  events: [
    PropertyCreated,
    PropertyUpdated,
    PropertyPriceChanged,
    PropertyStatusChanged,
    PropertyDeleted,
    PropertyRemoved,
  ],
  jobs: ({ db, config, log }: JobContext) => [
    {
      // Photos given by URL without an image file ending: their media type, for the Kyero feed (decision 0266).
      name: 'photos.probe',
      intervalMs: 30_000,
      async run() {
        await runPhotoProbes(db, {
          retryDelaysMs: config.webhookRetryDelaysMs ?? CONFIG_DEFAULTS.webhookRetryDelaysMs,
          allowPrivate: config.webhookAllowPrivateUrls ?? CONFIG_DEFAULTS.webhookAllowPrivateUrls,
          ...(log ? { log } : {}),
        });
      },
    },
  ],
});
