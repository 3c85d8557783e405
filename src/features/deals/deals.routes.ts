import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { actorOf } from '../../platform/auth/caller.ts';
import { CURSOR_MODE_DESCRIPTION } from '../../platform/http/pagination.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ErrorResponseSchema, ref, DeletedResponseSchema } from '../../platform/http/schemas.ts';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import {
  ApiMoveDealBodySchema,
  CreateDealBodySchema,
  DealIdParamsSchema,
  DealListResponseSchema,
  DealResponseSchema,
  ListDealsQuerySchema,
  MoveDealBodySchema,
  OrgDealParamsSchema,
  UpdateDealBodySchema,
} from './deals.schema.ts';
import * as deals from './deals.service.ts';
import * as read from './deals.read.ts';

const ADMIN = { admin: true } as const;
const ADMIN_TAGS = ['Admin: deals'];
const READ = { auth: { scope: 'deals:read', keyTypes: SECRET_KEYS, write: false } } as const;
// Writing deals is support-approved, like contacts (decision 0195).
const WRITE = { auth: { scope: 'deals:write', keyTypes: ['secret'], write: true, accessLevel: 3 } } as const;
const TAGS = ['Deals'];
const MOVE_RULES =
  "Status follows the stage's kind; probability is the stage's (WON 100, LOST 0); closedAt is set on WON/LOST and " +
  'cleared on OPEN; `lostReason` is kept only on LOST.';
/** A record the deal refers to changed while it was written. */
const CLASH = { 409: ref(ErrorResponseSchema) };

const LIST_DESCRIPTION =
  'Every filter is optional and they combine with AND. Date filters take a date (`2026-03-01`, midnight UTC) or ' +
  'a date-time; `…After` includes the instant, `…Before` excludes it. Default sort: newest first ' +
  '(`expectedCloseDate` sorts soonest first); nulls last; ties by id. ' +
  CURSOR_MODE_DESCRIPTION;

/** Deals: the v1 reads (deals:read, secret keys) and the back office's deal CRUD and moves; pipelines alongside. */
export const dealsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/v1/deals',
    {
      config: READ,
      schema: {
        operationId: 'deals.list',
        summary: 'Search deals',
        description: LIST_DESCRIPTION,
        tags: TAGS,
        querystring: ListDealsQuerySchema,
        response: { 200: DealListResponseSchema },
      },
    },
    async (request) => read.listDeals(db, callerOf(request).organization.id, request.query, request.query),
  );

  app.get(
    '/v1/deals/:id',
    {
      config: READ,
      schema: {
        operationId: 'deals.get',
        summary: 'One deal',
        description:
          'Secret or read-only secret key with `deals:read`. The deal with its pipeline and current stage ' +
          '(`stageName`, `stageEnteredAt`), status, probability, value and dates. 404 when the id is ' +
          'malformed, unknown or of another organization (one answer for all three).',
        tags: TAGS,
        params: DealIdParamsSchema,
        response: { 200: DealResponseSchema },
      },
    },
    async (request) => ({
      data: await read.getDeal(db, callerOf(request).organization.id, request.params.id),
    }),
  );

  app.post(
    '/v1/deals',
    {
      config: WRITE,
      schema: {
        operationId: 'deals.create',
        summary: 'Create a deal',
        description:
          'Secret key with `deals:write`, access level 3. Without `stageId` the deal starts in the first OPEN stage ' +
          "of `pipelineId` (default: the default pipeline). Status and probability follow the stage's kind; the " +
          'code (`DL-000001`) is the next of the organization. The contact, agent, property and stage must be the ' +
          "organization's (400 naming the field). Records `deal.created` (actor API). Send an `Idempotency-Key` " +
          'to retry safely.',
        tags: TAGS,
        body: CreateDealBodySchema,
        response: { 201: DealResponseSchema, ...CLASH },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const deal = await deals.createDeal(db, caller.organization.id, request.body, actorOf(caller));
      return reply.code(201).send({ data: deal });
    },
  );

  app.patch(
    '/v1/deals/:id',
    {
      config: WRITE,
      schema: {
        operationId: 'deals.update',
        summary: 'Change a deal',
        description:
          'Only the fields sent change; not its stage (POST /v1/deals/{id}/move). `lostReason` only on a LOST ' +
          'deal. Records `deal.updated` naming the fields sent (actor API). 404 for an id of another organization.',
        tags: TAGS,
        params: DealIdParamsSchema,
        body: UpdateDealBodySchema,
        response: { 200: DealResponseSchema, ...CLASH },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return {
        data: await deals.updateDeal(
          db,
          caller.organization.id,
          request.params.id,
          request.body,
          actorOf(caller),
        ),
      };
    },
  );

  app.delete(
    '/v1/deals/:id',
    {
      config: WRITE,
      schema: {
        operationId: 'deals.delete',
        summary: 'Delete a deal',
        description:
          'Deletes the deal for good. Records `deal.deleted` with a tombstone (`{id, deletedAt}`, actor API). 404 ' +
          'for an id of another organization.',
        tags: TAGS,
        params: DealIdParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return {
        data: await deals.deleteDeal(db, caller.organization.id, request.params.id, actorOf(caller)),
      };
    },
  );

  app.post(
    '/v1/deals/:id/move',
    {
      config: WRITE,
      schema: {
        operationId: 'deals.move',
        summary: 'Move a deal to another stage of its pipeline',
        description:
          `${MOVE_RULES} \`lostReason\` is required when the stage is a LOST one. Records \`deal.stage_changed\`, ` +
          'plus `deal.won` on entering a WON stage or `deal.lost` on a LOST one, each with `deal`, `contact` and ' +
          '`transition` (actor API). Moving to the current stage answers the deal unchanged and records nothing. ' +
          'Send an `Idempotency-Key` to retry safely.',
        tags: TAGS,
        params: DealIdParamsSchema,
        body: ApiMoveDealBodySchema,
        response: { 200: DealResponseSchema, ...CLASH },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return {
        data: await deals.moveDeal(db, caller.organization.id, request.params.id, request.body, {
          actor: actorOf(caller),
        }),
      };
    },
  );

  app.post(
    '/admin/v1/organizations/:orgId/deals',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.deals.create',
        summary: 'Create a deal',
        description:
          'Without `stageId` the deal starts in the first OPEN stage of `pipelineId` (default: the default ' +
          "pipeline). Status and probability follow the stage's kind; the code (`DL-000001`) is the next of the " +
          'organization. Records `deal.created`.',
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        body: CreateDealBodySchema,
        response: { 201: DealResponseSchema, ...CLASH },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await deals.createDeal(db, request.params.orgId, request.body) }),
  );

  app.get(
    '/admin/v1/organizations/:orgId/deals',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.deals.list',
        summary: "List an organization's deals",
        description: LIST_DESCRIPTION,
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        querystring: ListDealsQuerySchema,
        response: { 200: DealListResponseSchema },
      },
    },
    async (request) => read.listAdminDeals(db, request.params.orgId, request.query),
  );

  app.get(
    '/admin/v1/organizations/:orgId/deals/:dealId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.deals.get',
        summary: 'Get a deal',
        description:
          'Admin bearer token. The deal as GET /v1/deals/{id} shows it. 404 when the organization is ' +
          'unknown or the deal is not one of its.',
        tags: ADMIN_TAGS,
        params: OrgDealParamsSchema,
        response: { 200: DealResponseSchema },
      },
    },
    async (request) => ({
      data: await read.getAdminDeal(db, request.params.orgId, request.params.dealId),
    }),
  );

  app.patch(
    '/admin/v1/organizations/:orgId/deals/:dealId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.deals.update',
        summary: 'Change a deal',
        description: 'Any field but its stage (see …/move). Records `deal.updated`.',
        tags: ADMIN_TAGS,
        params: OrgDealParamsSchema,
        body: UpdateDealBodySchema,
        response: { 200: DealResponseSchema, ...CLASH },
      },
    },
    async (request) => ({
      data: await deals.updateDeal(db, request.params.orgId, request.params.dealId, request.body),
    }),
  );

  app.delete(
    '/admin/v1/organizations/:orgId/deals/:dealId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.deals.delete',
        summary: 'Delete a deal',
        description: 'Records `deal.deleted`.',
        tags: ADMIN_TAGS,
        params: OrgDealParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => ({
      data: await deals.deleteDeal(db, request.params.orgId, request.params.dealId),
    }),
  );

  app.post(
    '/admin/v1/organizations/:orgId/deals/:dealId/move',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.deals.move',
        summary: 'Move a deal to another stage of its pipeline',
        description:
          `${MOVE_RULES} Records \`deal.stage_changed\`, plus ` +
          '`deal.won` or `deal.lost`, each with `deal`, `contact` and `transition`; the actor is AUTOMATION when ' +
          '`automated`, else USER. Moving to the current stage answers the deal unchanged and records nothing.',
        tags: ADMIN_TAGS,
        params: OrgDealParamsSchema,
        body: MoveDealBodySchema,
        response: { 200: DealResponseSchema, ...CLASH },
      },
    },
    async (request) => ({
      data: await deals.moveDeal(db, request.params.orgId, request.params.dealId, request.body),
    }),
  );
};
