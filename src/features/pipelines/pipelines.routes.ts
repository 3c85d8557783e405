import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ErrorResponseSchema, ref, DeletedResponseSchema } from '../../platform/http/schemas.ts';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import * as pipelines from './pipelines.service.ts';
import {
  CreatePipelineBodySchema,
  ListPipelinesQuerySchema,
  OrgPipelineParamsSchema,
  PipelineListResponseSchema,
  PipelineResponseSchema,
  UpdatePipelineBodySchema,
} from './pipelines.schema.ts';

const ADMIN = { admin: true } as const;
const ADMIN_TAGS = ['Admin: pipelines'];
/** A stage or pipeline that still holds deals. */
const CLASH = { 409: ref(ErrorResponseSchema) };

const LIST_DESCRIPTION =
  'The default pipeline first, then oldest first. Each stage has a `kind` (OPEN, WON, LOST: the status a ' +
  'deal takes on entering it) and the `probability` a deal takes there.';

/** Pipelines: the v1 list (deals:read) and the back office's pipeline CRUD. */
export const pipelinesRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/v1/pipelines',
    {
      config: { auth: { scope: 'deals:read', keyTypes: SECRET_KEYS, write: false } },
      schema: {
        operationId: 'pipelines.list',
        summary: 'Pipelines with their stages in order',
        description: LIST_DESCRIPTION,
        tags: ['Deals'],
        querystring: ListPipelinesQuerySchema,
        response: { 200: PipelineListResponseSchema },
      },
    },
    async (request) => pipelines.listPipelines(db, callerOf(request).organization.id, request.query),
  );

  app.post(
    '/admin/v1/organizations/:orgId/pipelines',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.pipelines.create',
        summary: 'Create a pipeline with its stages',
        description:
          'At least one OPEN stage; WON stages have probability 100 and LOST ones 0; OPEN stages default to 10..90 ' +
          "by position. The organization's first pipeline is its default.",
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        body: CreatePipelineBodySchema,
        response: { 201: PipelineResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await pipelines.createPipeline(db, request.params.orgId, request.body) }),
  );

  app.get(
    '/admin/v1/organizations/:orgId/pipelines',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.pipelines.list',
        summary: "List an organization's pipelines, the default first",
        description: `Admin bearer token. ${LIST_DESCRIPTION} Paged: \`pageSize\` 20 by default, at most 100.`,
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        querystring: ListPipelinesQuerySchema,
        response: { 200: PipelineListResponseSchema },
      },
    },
    async (request) => pipelines.listAdminPipelines(db, request.params.orgId, request.query),
  );

  app.get(
    '/admin/v1/organizations/:orgId/pipelines/:pipelineId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.pipelines.get',
        summary: 'Get a pipeline',
        description:
          'Admin bearer token. The pipeline with its stages in order, each with its `kind` and ' +
          '`probability`. 404 when the organization is unknown or the pipeline is not one of its.',
        tags: ADMIN_TAGS,
        params: OrgPipelineParamsSchema,
        response: { 200: PipelineResponseSchema },
      },
    },
    async (request) => ({
      data: await pipelines.getAdminPipeline(db, request.params.orgId, request.params.pipelineId),
    }),
  );

  app.patch(
    '/admin/v1/organizations/:orgId/pipelines/:pipelineId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.pipelines.update',
        summary: 'Rename a pipeline, make it the default, or change its stages',
        description:
          '`stages` is the whole new list in order: stages with `id` are kept, stages without are added, the ' +
          'others removed. 409 DUPLICATE when a removed stage, or a stage whose kind changes, holds deals.',
        tags: ADMIN_TAGS,
        params: OrgPipelineParamsSchema,
        body: UpdatePipelineBodySchema,
        response: { 200: PipelineResponseSchema, ...CLASH },
      },
    },
    async (request) => ({
      data: await pipelines.updatePipeline(db, request.params.orgId, request.params.pipelineId, request.body),
    }),
  );

  app.delete(
    '/admin/v1/organizations/:orgId/pipelines/:pipelineId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.pipelines.delete',
        summary: 'Delete a pipeline and its stages',
        description:
          '409 DUPLICATE while it holds deals. When it was the default, the oldest remaining pipeline becomes the default.',
        tags: ADMIN_TAGS,
        params: OrgPipelineParamsSchema,
        response: { 200: DeletedResponseSchema, ...CLASH },
      },
    },
    async (request) => ({
      data: await pipelines.deletePipeline(db, request.params.orgId, request.params.pipelineId),
    }),
  );
};
