/**
 * The demo agency's CRM: contacts in every status, a sales pipeline with its deals (some won, some
 * lost), tasks and appointments. Made through the features' services, like a back office would,
 * so the events (contact.created, deal.won, ...) exist for webhook samples. Deterministic apart
 * from dates, which are relative to the seed time.
 */
import type { Database } from '../../db/database.ts';
import { fold } from '../../platform/text/fold.ts';
import { createAppointment } from '../appointments/index.ts';
import { CONTACT_STATUSES, type ContactSource, type ContactType, createContact } from '../contacts/index.ts';
import { createPipeline } from '../pipelines/index.ts';
import { createDeal, moveDeal } from '../deals/index.ts';
import { operatorCallerOf } from '../../platform/auth/credentials.ts';
import { createTask } from '../tasks/index.ts';
import type { AgentKey } from './demo-data.ts';

const FIRST = [
  'Carmen',
  'Alejandro',
  'Lucía',
  'Sergio',
  'Elena',
  'Raúl',
  'Nuria',
  'Iñaki',
  'Sofía',
  'Andrés',
];
const LAST = [
  'García',
  'Martínez',
  'López',
  'Sánchez',
  'Pérez',
  'Gómez',
  'Muñoz',
  'Álvarez',
  'Romero',
  'Ortega',
];
const SOURCES: ContactSource[] = ['WEBSITE', 'PORTAL', 'REFERRAL', 'PHONE', 'WALK_IN', 'SOCIAL'];
const TYPES: ContactType[] = ['LEAD', 'CLIENT', 'OWNER', 'TENANT', 'INVESTOR'];
const CITIES = ['Málaga', 'Madrid', 'Barcelona', 'Valencia', 'Sevilla'];

const DAY = 86_400_000;

/** The phone of the demo CRM's contact #i (deterministic, so other seeds can find them again). */
export const demoContactPhone = (i: number) => `+3466${String(1_000_000 + i * 7919).padStart(7, '0')}`;

/** Adds the CRM part of the demo agency (after its agents and properties exist). */
export async function seedDemoCrm(
  db: Database,
  organizationId: string,
  agentIds: Record<AgentKey, string>,
  now = Date.now(),
): Promise<{ contactIds: string[] }> {
  const agents = Object.values(agentIds);
  const operator = await operatorCallerOf(db, organizationId);
  const contactIds: string[] = [];
  for (let i = 0; i < 30; i++) {
    const firstName = FIRST[i % FIRST.length] as string;
    const lastName = LAST[(i * 3) % LAST.length] as string;
    const contact = await createContact(db, operator, {
      firstName,
      lastName,
      email: `${fold(firstName)}.${fold(lastName)}${i}@example.com`,
      phone: demoContactPhone(i),
      source: SOURCES[i % SOURCES.length],
      status: CONTACT_STATUSES[i % CONTACT_STATUSES.length],
      type: TYPES[i % TYPES.length],
      ownerId: agents[i % agents.length] as string,
      preferredCity: CITIES[i % CITIES.length] as string,
      preferredType: i % 3 === 0 ? 'HOUSE' : 'APARTMENT',
      budget: 150_000 + (i % 8) * 50_000,
      currency: 'EUR',
      tags: i % 4 === 0 ? ['buyer', 'newsletter'] : i % 4 === 1 ? ['seller'] : ['buyer'],
    });
    contactIds.push(contact.id);
  }

  const pipeline = await createPipeline(db, operator, {
    name: 'Sales',
    stages: [
      { name: 'New lead', kind: 'OPEN' },
      { name: 'Viewing scheduled', kind: 'OPEN' },
      { name: 'Offer made', kind: 'OPEN' },
      { name: 'Negotiation', kind: 'OPEN' },
      { name: 'Won', kind: 'WON' },
      { name: 'Lost', kind: 'LOST' },
    ],
  });
  const stages = pipeline.stages;
  const first = stages[0];
  if (!first) throw new Error('demo pipeline has no stages');
  // 15 deals: stage index per deal (5 = WON, 6 = LOST through a move, others open).
  const targets = [0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 4, 4, 5, 5, 0];
  for (let i = 0; i < targets.length; i++) {
    const contactId = contactIds[i * 2] as string;
    const deal = await createDeal(db, operator, {
      title: `${i % 3 === 0 ? 'Purchase' : 'Sale'} — ${CITIES[i % CITIES.length]} #${i + 1}`,
      contactId,
      pipelineId: pipeline.id,
      stageId: first.id,
      value: 180_000 + i * 25_000,
      currency: 'EUR',
      agentId: agents[i % agents.length] as string,
      intent: i % 3 === 0 ? 'PURCHASE' : 'SALE',
      leadSource: 'PORTAL',
      expectedCloseDate: new Date(now + (10 + i * 4) * DAY).toISOString(),
    });
    const target = stages[targets[i] as number];
    if (target && target.id !== first.id) {
      await moveDeal(db, operator, deal.id, {
        stageId: target.id,
        automated: i % 2 === 0,
        ...(target.kind === 'LOST' ? { lostReason: 'Chose another agency' } : {}),
      });
    }
  }

  const kinds = ['CALL', 'EMAIL', 'FOLLOW_UP', 'MEETING'] as const;
  for (let i = 0; i < 12; i++) {
    await createTask(db, operator, {
      title: `${kinds[i % kinds.length] === 'CALL' ? 'Call' : 'Follow up with'} contact #${i + 1}`,
      type: kinds[i % kinds.length],
      dueAt: new Date(now + (i - 2) * DAY).toISOString(),
      contactId: contactIds[i] as string,
      assigneeId: agents[i % agents.length] as string,
      ...(i < 3 ? { status: 'DONE' as const } : {}),
    });
  }

  // One appointment a day for a week, alternating agents, at 11:00 UTC: never overlapping.
  for (let i = 0; i < 6; i++) {
    const day = new Date(now + (i + 1) * DAY);
    day.setUTCHours(11, 0, 0, 0);
    await createAppointment(db, operator, {
      agentId: agents[i % 2] as string,
      contactId: contactIds[20 + i] as string,
      startsAt: day.toISOString(),
      durationMinutes: 45,
      type: 'SHOWING',
      status: i % 2 === 0 ? 'CONFIRMED' : 'SCHEDULED',
    });
  }
  return { contactIds };
}
