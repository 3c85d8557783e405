import { defineTool, pageSummary } from '../../platform/mcp/mcp-tool.ts';
import { ListPipelinesQuerySchema, PipelineListResponseSchema } from './pipelines.schema.ts';
import { listPipelines } from './pipelines.service.ts';

export const listPipelinesTool = defineTool({
  name: 'list_pipelines',
  title: 'List sales pipelines',
  description:
    "The agency's sales pipelines, the default first, each with its stages in order (name, kind OPEN/WON/LOST, " +
    'probability). Use the ids with list_deals (`pipelineId`, `stageId`). Paged like every list.',
  scopes: ['deals:read'],
  input: ListPipelinesQuerySchema,
  output: PipelineListResponseSchema,
  run: ({ db, caller }, args) => listPipelines(db, caller, args),
  summarize: (result) => pageSummary(result, 'pipeline'),
});

export const pipelinesMcpTools = [listPipelinesTool];
