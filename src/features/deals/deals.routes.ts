import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { CURSOR_MODE_DESCRIPTION } from '../../platform/http/pagination.ts';
import { adminMount, defineOperation, keyMount, mountOperations } from '../../platform/http/operation.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ErrorResponseSchema, ref, DeletedResponseSchema } from '../../platform/http/schemas.ts';
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

const ADMIN_TAGS = ['Admin: deals'];
const ADMIN = adminMount(ADMIN_TAGS);
const TAGS = ['Deals'];
const READ = keyMount({ scope: 'deals:read', keyTypes: SECRET_KEYS, write: false }, TAGS);
// Writing deals is support-approved, like contacts (decision 0195).
const WRITE = keyMount({ scope: 'deals:write', keyTypes: ['secret'], write: true, accessLevel: 3 }, TAGS);
const MOVE_RULES =
  "Status follows the stage's kind; probability is the stage's (WON 100, LOST 0); closedAt is set on WON/LOST and " +
  'cleared on OPEN; `lostReason` is kept only on LOST.';
/** A record the deal refers to changed while it was written. */
const CLASH = { 409: ref(ErrorResponseSchema) };
/** Who the events name: the key through v1, the operator in the back office. */
const ACTOR = 'actor API through v1, SYSTEM in the back office';

const LIST_DESCRIPTION =
  'Every filter is optional and they combine with AND. Date filters take a date (`2026-03-01`, midnight UTC) or ' +
  'a date-time; `…After` includes the instant, `…Before` excludes it. Default sort: newest first ' +
  '(`expectedCloseDate` sorts soonest first); nulls last; ties by id. ' +
  CURSOR_MODE_DESCRIPTION;

/**
 * Deals, each operation declared once and mounted on v1 (deals:read, deals:write) and in the back office
 * (decision 0241): one service call with the caller either credential resolves to. The move is the
 * exception: v1 and the back office take different bodies (`automated` is the back office's), so each
 * has its route, both calling `moveDeal` with the caller.
 */
const operations = (db: Database) => [
  defineOperation({
    id: 'deals.list',
    method: 'GET',
    path: '/deals',
    summary: 'Search deals',
    description: LIST_DESCRIPTION,
    querystring: ListDealsQuerySchema,
    response: { 200: DealListResponseSchema },
    mounts: [READ, ADMIN],
    handle: (caller, { query }) => read.listDeals(db, caller, query, query),
  }),
  defineOperation({
    id: 'deals.get',
    method: 'GET',
    path: '/deals/:id',
    summary: 'One deal',
    description:
      'The deal with its pipeline and current stage (`stageName`, `stageEnteredAt`), status, probability, ' +
      'value and dates. 404 when the id is malformed, unknown or of another organization (one answer for ' +
      'all three).',
    params: DealIdParamsSchema,
    response: { 200: DealResponseSchema },
    mounts: [READ, ADMIN],
    handle: async (caller, { params }) => ({ data: await read.getDeal(db, caller, params.id) }),
  }),
  defineOperation({
    id: 'deals.create',
    method: 'POST',
    path: '/deals',
    summary: 'Create a deal',
    description:
      'Without `stageId` the deal starts in the first OPEN stage of `pipelineId` (default: the default ' +
      "pipeline). Status and probability follow the stage's kind; the code (`DL-000001`) is the next of the " +
      "organization. The contact, agent, property and stage must be the organization's (400 naming the " +
      `field). Records \`deal.created\` (${ACTOR}). Send an \`Idempotency-Key\` to retry safely.`,
    body: CreateDealBodySchema,
    response: { 201: DealResponseSchema, ...CLASH },
    status: 201,
    mounts: [WRITE, ADMIN],
    handle: async (caller, { body }) => ({ data: await deals.createDeal(db, caller, body) }),
  }),
  defineOperation({
    id: 'deals.update',
    method: 'PATCH',
    path: '/deals/:id',
    summary: 'Change a deal',
    description:
      'Only the fields sent change; not its stage (POST /v1/deals/{id}/move). `lostReason` only on a LOST ' +
      `deal. Records \`deal.updated\` naming the fields sent (${ACTOR}). 404 for an id of another organization.`,
    params: DealIdParamsSchema,
    body: UpdateDealBodySchema,
    response: { 200: DealResponseSchema, ...CLASH },
    mounts: [WRITE, ADMIN],
    handle: async (caller, { params, body }) => ({
      data: await deals.updateDeal(db, caller, params.id, body),
    }),
  }),
  defineOperation({
    id: 'deals.delete',
    method: 'DELETE',
    path: '/deals/:id',
    summary: 'Delete a deal',
    description:
      `Deletes the deal for good. Records \`deal.deleted\` with a tombstone (\`{id, deletedAt}\`, ${ACTOR}). ` +
      '404 for an id of another organization.',
    params: DealIdParamsSchema,
    response: { 200: DeletedResponseSchema },
    mounts: [WRITE, ADMIN],
    handle: async (caller, { params }) => ({ data: await deals.deleteDeal(db, caller, params.id) }),
  }),
  defineOperation({
    id: 'deals.move',
    method: 'POST',
    path: '/deals/:id/move',
    summary: 'Move a deal to another stage of its pipeline',
    description:
      `${MOVE_RULES} \`lostReason\` is required when the stage is a LOST one. Records \`deal.stage_changed\`, ` +
      'plus `deal.won` on entering a WON stage or `deal.lost` on a LOST one, each with `deal`, `contact` and ' +
      '`transition` (actor API). Moving to the current stage answers the deal unchanged and records nothing. ' +
      'Send an `Idempotency-Key` to retry safely.',
    params: DealIdParamsSchema,
    body: ApiMoveDealBodySchema,
    response: { 200: DealResponseSchema, ...CLASH },
    mounts: [WRITE],
    handle: async (caller, { params, body }) => ({
      data: await deals.moveDeal(db, caller, params.id, body),
    }),
  }),
];

/** The deals routes: every operation on each surface that offers it, and the back office's move. */
export const dealsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  mountOperations(app, operations(db));

  app.post(
    '/admin/v1/organizations/:orgId/deals/:id/move',
    {
      config: { admin: true },
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
      data: await deals.moveDeal(db, callerOf(request), request.params.id, request.body),
    }),
  );
};
