import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { keyMount, adminMount, defineOperation, mountOperations } from '../../platform/http/operation.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ErrorResponseSchema, ref, DeletedResponseSchema } from '../../platform/http/schemas.ts';
import * as pipelines from './pipelines.service.ts';
import {
  CreatePipelineBodySchema,
  ListPipelinesQuerySchema,
  PipelineIdParamsSchema,
  PipelineListResponseSchema,
  PipelineResponseSchema,
  UpdatePipelineBodySchema,
} from './pipelines.schema.ts';

const ADMIN = adminMount(['Admin: pipelines']);
const READ = keyMount({ scope: 'deals:read', keyTypes: SECRET_KEYS, write: false }, ['Deals']);
/** A stage or pipeline that still holds deals. */
const CLASH = { 409: ref(ErrorResponseSchema) };

/**
 * Pipelines, each operation declared once (decision 0241): the list mounted on v1 (deals:read) and in
 * the back office, the rest of the CRUD in the back office only.
 */
const operations = (db: Database) => [
  defineOperation({
    id: 'pipelines.list',
    method: 'GET',
    path: '/pipelines',
    summary: 'Pipelines with their stages in order',
    description:
      'The default pipeline first, then oldest first. Each stage has a `kind` (OPEN, WON, LOST: the status a ' +
      'deal takes on entering it) and the `probability` a deal takes there. Paged: `pageSize` 20 by default, ' +
      'at most 100.',
    querystring: ListPipelinesQuerySchema,
    response: { 200: PipelineListResponseSchema },
    mounts: [READ, ADMIN],
    handle: (caller, { query }) => pipelines.listPipelines(db, caller, query),
  }),
  defineOperation({
    id: 'pipelines.create',
    method: 'POST',
    path: '/pipelines',
    summary: 'Create a pipeline with its stages',
    description:
      'At least one OPEN stage; WON stages have probability 100 and LOST ones 0; OPEN stages default to 10..90 ' +
      "by position. The organization's first pipeline is its default.",
    body: CreatePipelineBodySchema,
    response: { 201: PipelineResponseSchema },
    status: 201,
    mounts: [ADMIN],
    handle: async (caller, { body }) => ({ data: await pipelines.createPipeline(db, caller, body) }),
  }),
  defineOperation({
    id: 'pipelines.get',
    method: 'GET',
    path: '/pipelines/:id',
    summary: 'Get a pipeline',
    description:
      'The pipeline with its stages in order, each with its `kind` and `probability`. 404 when the ' +
      'organization is unknown or the pipeline is not one of its.',
    params: PipelineIdParamsSchema,
    response: { 200: PipelineResponseSchema },
    mounts: [ADMIN],
    handle: async (caller, { params }) => ({ data: await pipelines.getPipeline(db, caller, params.id) }),
  }),
  defineOperation({
    id: 'pipelines.update',
    method: 'PATCH',
    path: '/pipelines/:id',
    summary: 'Rename a pipeline, make it the default, or change its stages',
    description:
      '`stages` is the whole new list in order: stages with `id` are kept, stages without are added, the ' +
      'others removed. 409 DUPLICATE when a removed stage, or a stage whose kind changes, holds deals.',
    params: PipelineIdParamsSchema,
    body: UpdatePipelineBodySchema,
    response: { 200: PipelineResponseSchema, ...CLASH },
    mounts: [ADMIN],
    handle: async (caller, { params, body }) => ({
      data: await pipelines.updatePipeline(db, caller, params.id, body),
    }),
  }),
  defineOperation({
    id: 'pipelines.delete',
    method: 'DELETE',
    path: '/pipelines/:id',
    summary: 'Delete a pipeline and its stages',
    description:
      '409 DUPLICATE while it holds deals. When it was the default, the oldest remaining pipeline becomes the default.',
    params: PipelineIdParamsSchema,
    response: { 200: DeletedResponseSchema, ...CLASH },
    mounts: [ADMIN],
    handle: async (caller, { params }) => ({ data: await pipelines.deletePipeline(db, caller, params.id) }),
  }),
];

/** The pipelines routes: every operation on each surface that offers it. */
export const pipelinesRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  mountOperations(app, operations(db));
};
