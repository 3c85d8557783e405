import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import type { AppContext } from '../../platform/features/manifest.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import {
  cancelManagedVisit,
  getManagedVisit,
  managedAvailability,
  moveManagedVisit,
} from './booking.manage.ts';
import {
  CancelVisitBodySchema,
  ManagedVisitResponseSchema,
  ManageTokenParamsSchema,
  MoveVisitBodySchema,
} from './booking.manage.schema.ts';
import { AvailabilityQuerySchema, BookingAvailabilitySchema, DoubleData } from './booking.schema.ts';

const TAGS = ['Booking'];
/** The visitor's link is the credential: the organization is checked at the edge as for any key. */
const READ = { credential: { kind: 'visitor_link', write: false } } as const;
const WRITE = { credential: { kind: 'visitor_link', write: true } } as const;
const NO_KEY =
  'No key: the token of the manage link (`manageUrl` of the booking answer) is the credential, signed by the ' +
  'service and valid until the visit starts (404 for a token not ours, a deleted visit, or once it began). ';
const NOT_FOUND = { 404: ref(ErrorResponseSchema) };

/** A visitor's own visit, through the token of the link the booking answered (decision 0237). */
export const bookingManageRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { db }) => {
  app.get(
    '/v1/booking/manage/:token',
    {
      config: READ,
      schema: {
        operationId: 'booking.manage.get',
        summary: 'A visitor’s own visit',
        description: `${NO_KEY}The visit's time (also as a date and time in the agent's zone), agent, listing and status.`,
        tags: TAGS,
        params: ManageTokenParamsSchema,
        response: { 200: ManagedVisitResponseSchema, ...NOT_FOUND },
      },
    },
    async (request) => ({ data: { data: await getManagedVisit(db, callerOf(request)) } }),
  );

  app.get(
    '/v1/booking/manage/:token/availability',
    {
      config: READ,
      schema: {
        operationId: 'booking.manage.availability',
        summary: 'Free slots to move a visit to',
        description: `${NO_KEY}The agent's free slots of a month, as GET /v1/booking/{slug}/availability, the visit's own time counting as free.`,
        tags: TAGS,
        params: ManageTokenParamsSchema,
        querystring: AvailabilityQuerySchema,
        response: { 200: DoubleData(ref(BookingAvailabilitySchema)), ...NOT_FOUND },
      },
    },
    async (request) => ({
      data: { data: await managedAvailability(db, callerOf(request), request.query) },
    }),
  );

  app.post(
    '/v1/booking/manage/:token/cancel',
    {
      config: { ...WRITE, optionalBody: true },
      schema: {
        operationId: 'booking.manage.cancel',
        summary: 'The visitor cancels their visit',
        description:
          `${NO_KEY}CANCELLED at once: the agent's time is free, the agent gets a notification task and ` +
          '`appointment.updated` is recorded, in one transaction. Again: the cancelled visit, nothing recorded. 409 ' +
          'for a visit already COMPLETED or NO_SHOW.',
        tags: TAGS,
        params: ManageTokenParamsSchema,
        body: ref(CancelVisitBodySchema),
        response: { 200: ManagedVisitResponseSchema, ...NOT_FOUND, 409: ref(ErrorResponseSchema) },
      },
    },
    async (request) => ({
      data: { data: await cancelManagedVisit(db, callerOf(request), request.body ?? {}) },
    }),
  );

  app.post(
    '/v1/booking/manage/:token/move',
    {
      config: WRITE,
      schema: {
        operationId: 'booking.manage.move',
        summary: 'The visitor moves their visit to another free slot',
        description:
          `${NO_KEY}\`date\` and \`startTime\` name a free slot of GET /v1/booking/manage/{token}/availability. Checked ` +
          'and taken as a booking, in one transaction: 400 for a slot the agent never offers, a closed day or time ' +
          'off; 409 DUPLICATE when it is taken (also when two visitors race for it: exactly one gets it); 409 ' +
          'CONFLICT for a cancelled visit. The agent is notified and `appointment.updated` recorded; the link stays ' +
          'the same.',
        tags: TAGS,
        params: ManageTokenParamsSchema,
        body: ref(MoveVisitBodySchema),
        response: {
          200: ManagedVisitResponseSchema,
          400: ref(ErrorResponseSchema),
          ...NOT_FOUND,
          409: ref(ErrorResponseSchema),
        },
      },
    },
    async (request) => ({ data: { data: await moveManagedVisit(db, callerOf(request), request.body) } }),
  );
};
