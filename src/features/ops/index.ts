// Health, readiness and metrics: the operator's probes.
import { defineFeature } from '../../platform/features/manifest.ts';
import { opsRoutes } from './ops.routes.ts';

/** The ops feature's manifest (src/features.ts lists it). */
export const opsFeature = defineFeature({
  name: 'ops',
  tags: [{ name: 'Operations', description: 'Health, readiness, metrics and this description' }],
  routes: [opsRoutes],
});
