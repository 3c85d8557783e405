import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/features/manifest.ts';
import { originOf } from '../../platform/http/origin.ts';
import { browserLanguage } from '../../platform/http/languages.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { ANY_KEY } from '../../platform/http/route-config.ts';
import {
  AvailabilityQuerySchema,
  BookingAgentsResponseSchema,
  BookingAvailabilityResponseSchema,
  BookingReceiptResponseSchema,
  CreateBookingBodySchema,
  SlugParamsSchema,
} from './booking.schema.ts';
import * as booking from './booking.service.ts';
import { manageUrl } from '../appointments/index.ts';

const TAGS = ['Booking'];
// booking:write guards the whole booking surface (SPEC.md); only the POST is a write.
const READ = { auth: { scope: 'booking:write', keyTypes: ANY_KEY, write: false } } as const;
const WRITE = { auth: { scope: 'booking:write', keyTypes: ANY_KEY, write: true } } as const;

/** Online booking of appointments with agents. SPEC.md double-wraps all three answers: `{data: {data}}`. */
export const bookingRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { db, secrets, config }) => {
  app.get(
    '/v1/booking/agents',
    {
      config: READ,
      schema: {
        operationId: 'booking.agents.list',
        summary: 'Agents who take online bookings, each with the slug of their booking page',
        description:
          'Any key type with `booking:write`. Active agents with a booking slug and booking hours, by ' +
          'name, whether or not the portal lists them; not paged. Each has what a booking page needs: ' +
          '`slug`, `timezone`, `slotMinutes` and `autoConfirm`.',
        tags: TAGS,
        response: { 200: BookingAgentsResponseSchema },
      },
    },
    async (request) => ({
      data: { data: await booking.listBookableAgents(db, callerOf(request)) },
    }),
  );

  app.get(
    '/v1/booking/:slug/availability',
    {
      config: READ,
      schema: {
        operationId: 'booking.availability.get',
        summary: "Free slots of a month on an agent's booking page",
        description:
          "Dates and slots are wall-clock times in the agent's time zone (`timezone`), correct across DST " +
          'changes. Slots in the past, within the minimum notice, beyond the horizon or too close to a booked ' +
          'appointment are left out; `availableDates` lists only dates with a free slot. `month` is 0-11 ' +
          "(0 = January); month and year default to the agent's current ones.",
        tags: TAGS,
        params: SlugParamsSchema,
        querystring: AvailabilityQuerySchema,
        response: { 200: BookingAvailabilityResponseSchema },
      },
    },
    async (request) => ({
      data: {
        data: await booking.getAvailability(db, callerOf(request), request.params.slug, request.query),
      },
    }),
  );

  app.post(
    '/v1/booking/:slug',
    {
      config: WRITE,
      schema: {
        operationId: 'booking.create',
        summary: 'Book a slot with an agent',
        description:
          '`date` and `startTime` name a free slot of GET /v1/booking/{slug}/availability. The appointment is ' +
          'CONFIRMED when the agent auto-confirms, SCHEDULED otherwise; the person is saved as a contact of the ' +
          'agent, who is notified. 400 naming `body.date` or `body.startTime` when the agent never offers that ' +
          'slot (a past date, within the minimum notice, beyond the horizon, a day off, off the slot grid); ' +
          '409 DUPLICATE when an offered slot is no longer free (also when two people book it at the same ' +
          'moment: exactly one of them gets it). Closed days of the agency (public holidays, its closures) and the ' +
          "agent's time off are a 400 too; a day at the agent's `maxPerDay` a 409. The answer's `manageUrl` is the " +
          "visitor's own page to see, cancel or move the visit (docs/booking.md).",
        tags: TAGS,
        params: SlugParamsSchema,
        body: CreateBookingBodySchema,
        response: { 201: BookingReceiptResponseSchema },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const receipt = await booking.bookSlot(
        db,
        caller,
        request.params.slug,
        request.body,
        browserLanguage(request),
      );
      const link = manageUrl(
        secrets,
        originOf(request, config.publicUrl),
        caller.organization.id,
        receipt.appointmentId,
      );
      return reply.code(201).send({ data: { data: { ...receipt, manageUrl: link } } });
    },
  );
};
