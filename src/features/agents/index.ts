// Agents: the back office, the portal team page and their booking settings.
import { defineFeature } from '../../platform/features/manifest.ts';
import { AgentCreated, AgentDeleted, AgentUpdated } from './agents.events.ts';
import { agentsRoutes } from './agents.routes.ts';
import { agentsSchemas } from './agents.schema.ts';

export type { CreateAgentBody } from './agents.schema.ts';
export {
  createAgent,
  findBookingAgent,
  findAgentProfile,
  findBookingAgentById,
  isAgentOf,
  type AgentProfile,
  listBookingAgents,
  type BookingAgent,
} from './agents.service.ts';

/** The agents feature's manifest (src/features.ts lists it). */
export const agentsFeature = defineFeature({
  name: 'agents',
  schemas: agentsSchemas,
  routes: [agentsRoutes],
  events: [AgentCreated, AgentUpdated, AgentDeleted],
});
