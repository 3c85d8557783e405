import type { Database } from '../../db/database.ts';
import { SCOPES } from '../../platform/auth/scopes.ts';
import { createAgent, type CreateAgentBody } from '../agents/index.ts';
import { operatorCallerOf } from '../../platform/auth/credentials.ts';
import { createApiKey } from '../api-keys/index.ts';
import {
  countOrganizations,
  createOrganization,
  deleteOrganization,
  updateOrganization,
} from '../organizations/index.ts';
import { updatePortalSettings } from '../portal/index.ts';
import { importProperties } from '../property-import/index.ts';
import { seedDemoCalendar } from './demo-calendar.ts';
import { seedDemoConversations } from './demo-conversations.ts';
import { seedDemoCrm } from './demo-crm.ts';
import { seedDemoIntegrations } from './demo-integrations.ts';
import { DEMO_AGENTS, DEMO_COUNTRY, DEMO_CURRENCY, DEMO_PORTAL } from './demo-agency.ts';
import { demoProperties } from './demo-data.ts';
import type { DemoSeed } from './demo.schema.ts';

export interface DemoDeps {
  db: Database;
  /** Cleared after the seed's organization and keys are made, so this process sees them at once. */
  verifier: { invalidate(): void };
}

export const DEMO_ORGANIZATION_NAME = 'Demo Realty';

/**
 * Creates the demo agency: "Demo Realty" (BUSINESS, Spain, EUR) with a publishable key, a secret
 * key that has every scope and access level 3, and its content (demo-agency.ts, demo-data.ts) written through the
 * features' own services: 4 agents (2 bookable), portal settings, 150 properties, the CRM (demo-crm.ts)
 * conversations over the sandbox messaging number (demo-conversations.ts), and what an integrator's v1
 * calls leave (leads, visit requests decided, notes, consents, a merged duplicate: demo-integrations.ts). Its test twin gets the
 * same agents, portal settings and properties, so test-mode keys see listings, agents and slots.
 */
export async function seedDemo(deps: DemoDeps): Promise<DemoSeed> {
  const organization = await createOrganization(deps, {
    name: DEMO_ORGANIZATION_NAME,
    plan: 'BUSINESS',
    defaultCountry: DEMO_COUNTRY,
    defaultCurrency: DEMO_CURRENCY,
  });
  try {
    // The portal marks its reduced listings (and the twin follows): see the price drops below.
    // Listings are written in English with Spanish translations: the portal serves both.
    await updateOrganization(deps, organization.id, {
      showPriceDrops: true,
      defaultLanguage: 'en',
      languages: ['en', 'es'],
    });
    const operator = await operatorCallerOf(deps.db, organization.id);
    const publishable = await createApiKey(deps, operator, {
      type: 'publishable',
      name: 'Demo portal',
    });
    const secret = await createApiKey(deps, operator, {
      type: 'secret',
      name: 'Demo server',
      scopes: [...SCOPES],
      accessLevel: 3,
    });
    const agentIds = await seedDemoPortal(deps.db, organization.id);
    const { contactIds } = await seedDemoCrm(deps.db, organization.id, agentIds);
    const { reminderTemplateId } = await seedDemoConversations(deps.db, organization.id, contactIds);
    await seedDemoCalendar(deps.db, organization.id, reminderTemplateId);
    await seedDemoIntegrations(
      deps.db,
      { publishable: publishable.key, secret: secret.key },
      { contactIds, javierId: agentIds.javier },
    );
    // Test-mode keys act on the twin: the same listings and bookable agents there let an integration
    // be built with test keys from the first minute (decision 0174). Its CRM starts empty.
    if (organization.testOrganizationId) await seedDemoPortal(deps.db, organization.testOrganizationId);
    return { organization, publishableKey: publishable.key, secretKey: secret.key };
  } catch (error) {
    // The seed spans the organization's and the twin's transactions: leave no half-made agency.
    await deleteOrganization(deps.db, organization.id);
    throw error;
  }
}

/**
 * What the portal shows: the 4 agents (2 with booking hours), the portal settings and the 150
 * properties, in `organizationId` (the demo agency or its test twin); returns the agents' ids.
 */
async function seedDemoPortal(
  db: Database,
  organizationId: string,
): Promise<Record<keyof typeof DEMO_AGENTS, string>> {
  // Read after the organization's languages were set: the listings' translations are checked against them.
  const operator = await operatorCallerOf(db, organizationId);
  const agentIds = {} as Record<keyof typeof DEMO_AGENTS, string>;
  for (const [key, body] of Object.entries(DEMO_AGENTS) as [keyof typeof DEMO_AGENTS, CreateAgentBody][]) {
    agentIds[key] = (await createAgent(db, operator, body)).id;
  }
  await updatePortalSettings(db, operator, DEMO_PORTAL);
  const stock = demoProperties(agentIds);
  const imported = await importProperties(db, operator, stock);
  if (imported.failed > 0) throw new Error(`demo properties refused: ${JSON.stringify(imported.errors)}`);
  // Every 15th listing was reduced by 5 % after it was listed: a price history, and `previousPrice`.
  const reduced = stock
    .filter((_, index) => index % 15 === 2)
    .map((row) => ({ ...row, price: Math.round(row.price * 0.95) }));
  const reimported = await importProperties(db, operator, reduced);
  if (reimported.failed > 0) throw new Error(`demo reductions refused: ${JSON.stringify(reimported.errors)}`);
  return agentIds;
}

/** Seeds the demo agency only on an empty database (first start of the embedded default). */
export async function seedDemoIfEmpty(deps: DemoDeps): Promise<DemoSeed | null> {
  const existing = await countOrganizations(deps.db);
  return existing === 0 ? seedDemo(deps) : null;
}
