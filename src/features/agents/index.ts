// Agents: the back office, the portal team page and their booking settings.
import { agentsPersonalData } from './agents.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { AgentCreated, AgentDeleted, AgentUpdated } from './agents.events.ts';
import { agentsRoutes } from './agents.routes.ts';
import { agentsSchemas } from './agents.schema.ts';

export type { CreateAgentBody } from './agents.schema.ts';
export { RESERVED_BOOKING_SLUGS } from './agents.schema.ts';
export { createAgent, isAgentOf } from './agents.service.ts';
export {
  findBookingAgent,
  findAgentProfile,
  findBookingAgentById,
  type AgentProfile,
  listBookingAgents,
  type BookingAgent,
} from './agents.booking.ts';

/** The agents feature's manifest (src/features.ts lists it). */
export const agentsFeature = defineFeature({
  name: 'agents',
  personalData: agentsPersonalData,
  tags: [
    { name: 'Admin: agents', description: "The agency's agents, their booking hours and slugs (admin)" },
  ],
  examples: {
    schemaIds: {
      AdminAgent: 'agt',
      PortalAgent: 'agt',
    },
    fields: {
      startTime: '09:00',
      endTime: '18:00',
      timezone: 'Europe/Madrid',
      photoUrl: 'https://cdn.example.com/agents/lucia.jpg',
      bio: 'Ten years selling homes on the Costa del Sol.',
      bookingSlug: 'lucia-garcia',
    },
  },
  schemas: agentsSchemas,
  routes: [agentsRoutes],
  events: [AgentCreated, AgentUpdated, AgentDeleted],
});
