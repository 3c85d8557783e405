/** Agents, through the admin API. */
import type { FastifyInstance } from 'fastify';
import { admin, expectStatus } from '../http.ts';

let agentSequence = 0;

/**
 * An agent through the admin API (active, shown on the portal, no online booking unless
 * `bookingSlug` and `booking` are given). Returns the admin view.
 */
export async function createAgent(
  app: FastifyInstance,
  organizationId: string,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string; bookingSlug: string | null } & Record<string, unknown>> {
  agentSequence += 1;
  const response = await admin(app, 'POST', `/admin/v1/organizations/${organizationId}/agents`, {
    firstName: 'Lucía',
    lastName: `Romero ${agentSequence}`,
    email: `agent${agentSequence}@example-realty.com`,
    phone: '+34612345678',
    photoUrl: `https://images.example.com/agents/${agentSequence}.jpg`,
    ...overrides,
  });
  return expectStatus(response, 201).data;
}
