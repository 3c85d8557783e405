import { Type, type Static } from '@fastify/type-provider-typebox';
import { ListOf, pageRequest } from '../../platform/http/pagination.ts';
import { ref } from '../../platform/http/schemas.ts';
import {
  defineTool,
  type McpCountDefinition,
  pagedArguments,
  pageSummary,
} from '../../platform/mcp/mcp-tool.ts';
import { AppointmentSchema, ListAppointmentsQuerySchema } from './appointments.schema.ts';
import { listAppointments } from './appointments.read.ts';

const { page, pageSize, from, to, agentId, status } = ListAppointmentsQuerySchema.properties;
const ListAppointmentsInputSchema = Type.Object(
  { from, to, agentId, status, page, pageSize },
  { additionalProperties: false },
);

export const listAppointmentsTool = defineTool({
  name: 'list_appointments',
  title: 'List appointments',
  description:
    "The agents' appointments (property visits, valuations, calls...), soonest first. `from` (inclusive) and " +
    '`to` (strict) bound the start time; each takes a date (its midnight, UTC) or a date-time with offset. ' +
    'Narrow to one agent (`agentId`, agt_…) or one `status` (SCHEDULED and CONFIRMED are still to happen). ' +
    'Paged: `page` from 1, `pageSize` up to 100 (default 20).',
  scopes: ['appointments:read'],
  input: ListAppointmentsInputSchema,
  output: ListOf(ref(AppointmentSchema)),
  run: ({ db, caller }, args: Static<typeof ListAppointmentsInputSchema>) => {
    const { filter, page } = pagedArguments(args);
    return listAppointments(db, caller, filter, page);
  },
  summarize: (result) => pageSummary(result, 'appointment'),
});

export const appointmentsMcpTools = [listAppointmentsTool];

/** The MCP summary's count of the appointments feature. */
export const appointmentsMcpCounts: McpCountDefinition[] = [
  {
    name: 'upcomingAppointments',
    description: 'SCHEDULED or CONFIRMED appointments from now on (appointments:read)',
    scope: 'appointments:read',
    count: async ({ db, caller }, now) => {
      let upcoming = 0;
      for (const status of ['SCHEDULED', 'CONFIRMED'] as const) {
        upcoming += (
          await listAppointments(db, caller, { from: now, status }, pageRequest({ page: 1, pageSize: 1 }))
        ).meta.total;
      }
      return upcoming;
    },
  },
];
