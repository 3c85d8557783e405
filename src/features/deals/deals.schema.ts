import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { DateOrDateTime } from '../../platform/http/dates.ts';
import { ListOf, pageQuery, syncQuery } from '../../platform/http/pagination.ts';
import {
  Amount,
  DataOf,
  DateTime,
  ERROR_MESSAGES,
  NotBlank,
  StringEnum,
  ref,
  Nullable,
} from '../../platform/http/schemas.ts';
import { STAGE_KINDS } from '../pipelines/index.ts';
import { DEAL_INTENTS, DEAL_LEAD_SOURCES, SAAS_BILLING_PERIODS } from '../../db/schema.ts';

// The value sets of stored columns live beside their table, which is typed with them (decision 0248).
export {
  DEAL_INTENTS,
  DEAL_LEAD_SOURCES,
  SAAS_BILLING_PERIODS,
  type DealIntent,
  type DealLeadSource,
  type DealStatus,
  type SaasBillingPeriod,
} from '../../db/schema.ts';

/** A deal's status is its stage's kind. */
export const DEAL_STATUSES = STAGE_KINDS;
export const DEAL_SORTS = ['createdAt', 'updatedAt', 'value', 'expectedCloseDate', 'stageEnteredAt'] as const;

export type DealSort = (typeof DEAL_SORTS)[number];

// ---------------------------------------------------------------------------------------------
// Deals

/** SPEC.md "Deal", plus updatedAt and propertyId. Event payloads carry exactly this. */
export const DealSchema = Type.Object(
  {
    id: Type.String({ description: 'deal_… identifier' }),
    code: Type.String({ description: 'Human-readable code, unique in the organization (DL-000042)' }),
    title: Type.String(),
    value: Type.Number(),
    currency: Type.String({ description: 'ISO 4217' }),
    probability: Type.Number({
      minimum: 0,
      maximum: 100,
      description: "The stage's when it entered it; 100 when won",
    }),
    status: StringEnum(DEAL_STATUSES, { description: "The kind of the deal's stage" }),
    intent: StringEnum(DEAL_INTENTS),
    leadSource: StringEnum(DEAL_LEAD_SOURCES),
    lostReason: Nullable(Type.String({ description: 'Set when the deal is LOST (may still be null)' })),
    aiCreated: Type.Boolean({ description: 'Created by an AI assistant' }),
    agentId: Nullable(Type.String({ description: 'Agent in charge; null when none' })),
    contactId: Nullable(
      Type.String({ description: 'The contact; null only once that person was erased (the deal stays)' }),
    ),
    propertyId: Nullable(Type.String()),
    pipelineId: Type.String(),
    stageId: Type.String(),
    stageName: Type.String(),
    stageEnteredAt: DateTime(),
    expectedCloseDate: Nullable(DateTime()),
    closedAt: Nullable(DateTime({ description: 'When the deal was won or lost; null while OPEN' })),
    saasPlanId: Nullable(Type.String()),
    saasPlanName: Nullable(Type.String()),
    saasBillingPeriod: Nullable(StringEnum(SAAS_BILLING_PERIODS)),
    saasMrrAmount: Nullable(Type.Number()),
    trialStartedAt: Nullable(DateTime()),
    trialEndsAt: Nullable(DateTime()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'Deal', additionalProperties: false },
);
export type Deal = Static<typeof DealSchema>;

const NullableText = (maxLength: number) => Nullable(Type.String({ minLength: 1, maxLength }));

/** Why a PATCH may not name the deal's place in a pipeline. */
const MOVE_ONLY = 'cannot change here: move the deal (POST /v1/deals/{id}/move)';

/** Fields a deal takes on creation and in a PATCH (besides its place in a pipeline). */
const writableFields = {
  title: NotBlank({ minLength: 1, maxLength: 200 }),
  value: Amount({ description: 'Default 0' }),
  currency: Type.String({ pattern: '^[A-Z]{3}$', description: "ISO 4217; default: the organization's" }),
  agentId: Nullable(Type.String({ description: 'agt_… of an agent of the organization' })),
  propertyId: Nullable(Type.String({ description: 'prop_… of a property of the organization' })),
  intent: StringEnum(DEAL_INTENTS, { description: 'Default PURCHASE' }),
  leadSource: StringEnum(DEAL_LEAD_SOURCES, { description: "Default: the contact's source" }),
  expectedCloseDate: Nullable(DateOrDateTime('A date (midnight UTC) or a date-time')),
  aiCreated: Type.Boolean({ description: 'Default false' }),
  lostReason: NullableText(500),
  saasPlanId: NullableText(200),
  saasPlanName: NullableText(200),
  saasBillingPeriod: Nullable(StringEnum(SAAS_BILLING_PERIODS)),
  saasMrrAmount: Nullable(Amount()),
  trialStartedAt: Nullable(DateOrDateTime('A date (midnight UTC) or a date-time')),
  trialEndsAt: Nullable(DateOrDateTime('A date (midnight UTC) or a date-time')),
};
const optional = Type.Partial(Type.Object(writableFields)).properties;

export const CreateDealBodySchema = Type.Object(
  {
    ...optional,
    title: writableFields.title,
    contactId: Type.String({ description: 'ct_… of a contact of the organization' }),
    pipelineId: Type.Optional(
      Type.String({ description: "pl_…; default: the stage's pipeline, else the default pipeline" }),
    ),
    stageId: Type.Optional(
      Type.String({ description: 'stg_… of a stage of the pipeline; default: its first OPEN stage' }),
    ),
  },
  {
    $id: 'CreateDealBody',
    additionalProperties: false,
    description:
      "Status and probability follow the stage's kind; `lostReason` only with a LOST stage. " +
      'The contact, agent, property and stage must belong to the organization',
    // A deal as one starts (an open stage: no lostReason), not every optional field at its minimum.
    examples: [
      {
        title: 'Sea view flat in Málaga',
        contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uE',
        pipelineId: 'pl_0VhJ3kQ2Zt8mX1pR4sT6uE',
        value: 395000,
        currency: 'EUR',
        agentId: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uE',
        propertyId: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uE',
        intent: 'PURCHASE',
        leadSource: 'WEBSITE',
        expectedCloseDate: '2027-04-30',
      },
    ],
  },
);
export type CreateDealBody = Static<typeof CreateDealBodySchema>;

export const UpdateDealBodySchema = Type.Object(
  {
    ...optional,
    contactId: Type.Optional(Type.String({ description: 'ct_… of a contact of the organization' })),
  },
  {
    $id: 'UpdateDealBody',
    additionalProperties: false,
    minProperties: 1,
    description: 'Any writable field; the stage changes only through POST …/deals/{dealId}/move',
    // Not fields of a change (so not declared), but what a client may well try: named in the 400.
    [ERROR_MESSAGES]: {
      additionalProperties: { pipelineId: MOVE_ONLY, stageId: MOVE_ONLY },
    },
    examples: [{ value: 420000, expectedCloseDate: '2027-04-30', agentId: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uE' }],
  },
);
export type UpdateDealBody = Static<typeof UpdateDealBodySchema>;

/** `POST /v1/deals/{id}/move`: the stage, and why when it is a LOST one (the actor is the key: API). */
export const ApiMoveDealBodySchema = Type.Object(
  {
    stageId: Type.String({ description: 'stg_… of a stage of the same pipeline' }),
    lostReason: Type.Optional(NullableText(500)),
  },
  {
    $id: 'ApiMoveDealBody',
    additionalProperties: false,
    description: '`lostReason` is required when moving into a LOST stage, and refused for any other',
  },
);

export const MoveDealBodySchema = Type.Object(
  {
    stageId: Type.String({ description: 'stg_… of a stage of the same pipeline' }),
    automated: Type.Optional(
      Type.Boolean({
        description: 'Moved by an automation (actor AUTOMATION) rather than a user; default false',
      }),
    ),
    lostReason: Type.Optional(NullableText(500)),
  },
  {
    $id: 'MoveDealBody',
    additionalProperties: false,
    description: '`lostReason` only when moving into a LOST stage (optional there)',
  },
);
export type MoveDealBody = Static<typeof MoveDealBodySchema>;

export const ListDealsQuerySchema = Type.Object(
  {
    ...pageQuery(),
    pipelineId: Type.Optional(Type.String({ maxLength: 64 })),
    stageId: Type.Optional(Type.String({ maxLength: 64 })),
    status: Type.Optional(StringEnum(DEAL_STATUSES)),
    agentId: Type.Optional(Type.String({ maxLength: 64 })),
    contactId: Type.Optional(Type.String({ maxLength: 64 })),
    intent: Type.Optional(StringEnum(DEAL_INTENTS)),
    leadSource: Type.Optional(StringEnum(DEAL_LEAD_SOURCES)),
    expectedCloseAfter: Type.Optional(
      DateOrDateTime('expectedCloseDate at or after (a date means its start, UTC)'),
    ),
    expectedCloseBefore: Type.Optional(DateOrDateTime('expectedCloseDate strictly before')),
    createdAfter: Type.Optional(DateOrDateTime('createdAt at or after (a date means its start, UTC)')),
    createdBefore: Type.Optional(DateOrDateTime('createdAt strictly before')),
    sortBy: Type.Optional(StringEnum(DEAL_SORTS, { description: 'Default createdAt' })),
    sortOrder: Type.Optional(
      StringEnum(['asc', 'desc'] as const, {
        description: 'Default asc for expectedCloseDate (soonest first), desc otherwise; nulls last',
      }),
    ),
    ...syncQuery(),
  },
  { additionalProperties: false },
);
export type ListDealsQuery = Static<typeof ListDealsQuerySchema>;
/** The filters and sort of a deal list (the query without paging), as the MCP tools pass them too. */
export type DealFilter = Omit<ListDealsQuery, 'page' | 'pageSize'>;

export const DealResponseSchema = DataOf(ref(DealSchema));
export const DealListResponseSchema = ListOf(ref(DealSchema), { cursorMode: true });

export const DealIdParamsSchema = Type.Object({ id: Type.String() }, { additionalProperties: false });
/** The back office's move (its own route: its body differs from v1's). */
export const OrgDealParamsSchema = Type.Object(
  { orgId: Type.String(), id: Type.String() },
  { additionalProperties: false },
);

export const dealsSchemas: TSchema[] = [
  DealSchema,
  CreateDealBodySchema,
  UpdateDealBodySchema,
  MoveDealBodySchema,
  ApiMoveDealBodySchema,
];
