import { Type } from '@fastify/type-provider-typebox';
import { defineEvent, tombstoneSchema } from '../../platform/events/catalog.ts';
import { ContactSchema, exampleContact } from '../contacts/index.ts';
import { DealSchema, type Deal } from './deals.schema.ts';

// Event payloads inline their schemas (no $ref): the catalog serves them to integrators as is.
const DealPayload = Type.Object({ ...DealSchema.properties }, { additionalProperties: false });
const ContactPayload = Type.Object({ ...ContactSchema.properties }, { additionalProperties: false });

/** SPEC.md "Transition (inside deal events)", exactly. */
const TransitionPayload = Type.Object(
  {
    fromStageId: Type.String(),
    fromStageName: Type.String(),
    toStageId: Type.String(),
    toStageName: Type.String(),
    pipelineId: Type.String(),
    lostReason: Type.Union([Type.String(), Type.Null()]),
    automated: Type.Boolean(),
  },
  { additionalProperties: false },
);

const MovePayload = Type.Object(
  { deal: DealPayload, contact: Type.Union([ContactPayload, Type.Null()]), transition: TransitionPayload },
  { additionalProperties: false },
);

const exampleDeal: Deal = {
  id: 'deal_0VhJ3kQ2Zt8mX1pR4sT6uD',
  code: 'DL-000042',
  title: 'Lucía Fernández: two-bedroom flat in Soho',
  value: 325000,
  currency: 'EUR',
  probability: 60,
  status: 'OPEN',
  intent: 'PURCHASE',
  leadSource: 'PORTAL',
  lostReason: null,
  aiCreated: false,
  agentId: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uA',
  contactId: exampleContact.id,
  propertyId: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uW',
  pipelineId: 'pl_0VhJ3kQ2Zt8mX1pR4sT6uP',
  stageId: 'stg_0VhJ3kQ2Zt8mX1pR4sT6u3',
  stageName: 'Offer made',
  stageEnteredAt: '2026-11-20T16:40:00.000Z',
  expectedCloseDate: '2026-12-15T00:00:00.000Z',
  closedAt: null,
  saasPlanId: null,
  saasPlanName: null,
  saasBillingPeriod: null,
  saasMrrAmount: null,
  trialStartedAt: null,
  trialEndsAt: null,
  createdAt: '2026-11-02T10:15:00.000Z',
  updatedAt: '2026-11-20T16:40:00.000Z',
};

const wonDeal: Deal = {
  ...exampleDeal,
  probability: 100,
  status: 'WON',
  stageId: 'stg_0VhJ3kQ2Zt8mX1pR4sT6u5',
  stageName: 'Won',
  stageEnteredAt: '2026-12-10T11:05:00.000Z',
  closedAt: '2026-12-10T11:05:00.000Z',
  updatedAt: '2026-12-10T11:05:00.000Z',
};

const lostDeal: Deal = {
  ...exampleDeal,
  probability: 0,
  status: 'LOST',
  lostReason: 'Bought through another agency',
  stageId: 'stg_0VhJ3kQ2Zt8mX1pR4sT6u6',
  stageName: 'Lost',
  stageEnteredAt: '2026-12-10T11:05:00.000Z',
  closedAt: '2026-12-10T11:05:00.000Z',
  updatedAt: '2026-12-10T11:05:00.000Z',
};

const fromOffer = {
  fromStageId: exampleDeal.stageId,
  fromStageName: exampleDeal.stageName,
  pipelineId: exampleDeal.pipelineId,
};

export const DealCreated = defineEvent({
  type: 'deal.created',
  description: 'A deal was created in the back office.',
  schema: Type.Object({ deal: DealPayload }, { additionalProperties: false }),
  example: { deal: exampleDeal },
});

export const DealUpdated = defineEvent({
  type: 'deal.updated',
  description:
    'Fields of a deal changed (not its stage: see `deal.stage_changed`). `data.changes` names the fields sent.',
  schema: Type.Object(
    { deal: DealPayload, changes: Type.Array(Type.String()) },
    { additionalProperties: false },
  ),
  example: { deal: { ...exampleDeal, value: 310000 }, changes: ['value'] },
});

export const DealDeleted = defineEvent({
  type: 'deal.deleted',
  description:
    'A deal was deleted in the back office, or with its contact. `data.deal` is a tombstone: its id and when ' +
    'it was deleted.',
  schema: tombstoneSchema('deal'),
  example: { deal: { id: exampleDeal.id, deletedAt: '2027-03-29T10:15:00.000Z' } },
});

export const DealStageChanged = defineEvent({
  type: 'deal.stage_changed',
  description:
    'A deal moved to another stage of its pipeline, by a user or an automation (`transition.automated`). ' +
    'Every move emits it; a move into a WON or LOST stage also emits `deal.won` or `deal.lost`.',
  schema: MovePayload,
  example: {
    deal: exampleDeal,
    contact: exampleContact,
    transition: {
      fromStageId: 'stg_0VhJ3kQ2Zt8mX1pR4sT6u2',
      fromStageName: 'Visit done',
      toStageId: exampleDeal.stageId,
      toStageName: exampleDeal.stageName,
      pipelineId: exampleDeal.pipelineId,
      lostReason: null,
      automated: false,
    },
  },
});

export const DealWon = defineEvent({
  type: 'deal.won',
  description:
    'A deal moved into a winning stage (by a user or an automation): status WON, probability 100, closedAt set.',
  schema: MovePayload,
  example: {
    deal: wonDeal,
    contact: exampleContact,
    transition: {
      ...fromOffer,
      toStageId: wonDeal.stageId,
      toStageName: wonDeal.stageName,
      lostReason: null,
      automated: false,
    },
  },
});

export const DealLost = defineEvent({
  type: 'deal.lost',
  description:
    'A deal moved into a losing stage: status LOST, probability 0, closedAt set, with its lostReason.',
  schema: MovePayload,
  example: {
    deal: lostDeal,
    contact: exampleContact,
    transition: {
      ...fromOffer,
      toStageId: lostDeal.stageId,
      toStageName: lostDeal.stageName,
      lostReason: lostDeal.lostReason,
      automated: true,
    },
  },
});

/** Every deal event, in catalog order: what the deals manifest declares. */
export const dealEvents = [DealCreated, DealUpdated, DealDeleted, DealStageChanged, DealWon, DealLost];
