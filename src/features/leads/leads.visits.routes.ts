import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import * as read from './leads.read.ts';
import {
  ListVisitRequestsQuerySchema,
  VisitRequestListResponseSchema,
  VisitRequestOneResponseSchema,
} from './leads.schema.ts';
import {
  ConfirmVisitRequestBodySchema,
  DeclineVisitRequestBodySchema,
  VisitRequestIdParamsSchema,
} from './leads.visits.schema.ts';
import * as visits from './leads.visits.service.ts';

const READ = { auth: { scope: 'leads:read', keyTypes: SECRET_KEYS, write: false } } as const;
// Deciding a visit is an appointment write: support-approved, secret keys, level 3 (decision 0203).
const DECIDE = {
  auth: { scope: 'appointments:write', keyTypes: ['secret'], write: true, accessLevel: 3 },
} as const;
const TAGS = ['Leads'];
/** A request already decided (CONFLICT) or, on confirm, a taken slot (DUPLICATE). */
const CLASH = { 409: ref(ErrorResponseSchema) };
const CONTENT =
  'Each has its status, contact (id and current name), property (id, code, title), preferred date and time, ' +
  'message, and the decision: `appointmentId` (CONFIRMED), `declineReason` (DECLINED), `decidedAt`.';
const DECIDED_ONCE =
  '409 CONFLICT naming the status when the request is not PENDING (a request is decided once); 404 for an ' +
  'id of another organization. Send an `Idempotency-Key` to retry safely.';

/** The visit requests the portal left (leads:read) and the agency's decision on them (appointments:write). */
export const leadsVisitsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/v1/visit-requests',
    {
      config: READ,
      schema: {
        operationId: 'visitRequests.list',
        summary: 'List the visit requests',
        description:
          'Secret or read-only secret key with `leads:read`. The visits asked for through POST ' +
          `/v1/leads/schedule, newest first. ${CONTENT} \`status\` keeps one status. A page past ` +
          'the end answers `data: []` with the true `meta`.',
        tags: TAGS,
        querystring: ListVisitRequestsQuerySchema,
        response: { 200: VisitRequestListResponseSchema },
      },
    },
    async (request) => read.searchVisitRequests(db, callerOf(request), request.query),
  );

  app.get(
    '/v1/visit-requests/:id',
    {
      config: READ,
      schema: {
        operationId: 'visitRequests.get',
        summary: 'Get a visit request',
        description:
          'Secret or read-only secret key with `leads:read`. 404 when the id is malformed, unknown or of ' +
          `another organization (one answer for all three). ${CONTENT}`,
        tags: TAGS,
        params: VisitRequestIdParamsSchema,
        response: { 200: VisitRequestOneResponseSchema },
      },
    },
    async (request) => ({
      data: await read.findVisitRequest(db, callerOf(request), request.params.id),
    }),
  );

  app.post(
    '/v1/visit-requests/:id/confirm',
    {
      config: DECIDE,
      schema: {
        operationId: 'visitRequests.confirm',
        summary: 'Confirm a visit request: book its appointment',
        description:
          'Secret key with `appointments:write`, access level 3. In one transaction, creates the appointment ' +
          "with the request's contact and property exactly as POST /v1/appointments does (the same slot " +
          'rules: 400 naming `body.agentId`, `body.date` or `body.startTime`; 409 DUPLICATE for a taken slot, ' +
          'exactly one winner when two race), and sets the request CONFIRMED with `appointmentId` and ' +
          '`decidedAt`. Records `appointment.created`, then `visit_request.confirmed` (actor API). ' +
          DECIDED_ONCE,
        tags: TAGS,
        params: VisitRequestIdParamsSchema,
        body: ConfirmVisitRequestBodySchema,
        response: { 200: VisitRequestOneResponseSchema, ...CLASH },
      },
    },
    async (request) => ({
      data: await visits.confirmVisitRequest(db, callerOf(request), request.params.id, request.body),
    }),
  );

  app.post(
    '/v1/visit-requests/:id/decline',
    {
      config: DECIDE,
      schema: {
        operationId: 'visitRequests.decline',
        summary: 'Decline a visit request',
        description:
          'Secret key with `appointments:write`, access level 3. Sets the request DECLINED with the trimmed ' +
          '`reason` (required, not blank, up to 1000 characters) as `declineReason`, and `decidedAt`. No ' +
          'appointment is made. Records `visit_request.declined` (actor API). ' +
          DECIDED_ONCE,
        tags: TAGS,
        params: VisitRequestIdParamsSchema,
        body: DeclineVisitRequestBodySchema,
        response: { 200: VisitRequestOneResponseSchema, ...CLASH },
      },
    },
    async (request) => ({
      data: await visits.declineVisitRequest(db, callerOf(request), request.params.id, request.body),
    }),
  );
};
