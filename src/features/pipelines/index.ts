// Sales pipelines and their stages (back office, v1 reads).
import { pipelinesPersonalData } from './pipelines.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { pipelinesMcpTools } from './pipelines.mcp.ts';
import { pipelinesRoutes } from './pipelines.routes.ts';
import { pipelinesSchemas } from './pipelines.schema.ts';

export { STAGE_KINDS, type Pipeline, type PipelineStage, type StageKind } from './pipelines.schema.ts';
export { createPipeline, listPipelines, placeOfNewDeal, requireStage } from './pipelines.service.ts';

/** The pipelines feature's manifest (src/features.ts lists it). */
export const pipelinesFeature = defineFeature({
  name: 'pipelines',
  personalData: pipelinesPersonalData,
  examples: {
    fields: {
      'Pipeline.name': 'Sales',
      'PipelineStage.name': 'Visit done',
    },
  },
  tags: [{ name: 'Admin: pipelines', description: 'Pipelines and their ordered stages (admin)' }],
  schemas: pipelinesSchemas,
  routes: [pipelinesRoutes],
  mcpTools: pipelinesMcpTools,
});
