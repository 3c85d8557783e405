import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { Amount, DataOf, DateTime, StringEnum, ref } from '../../platform/http/schemas.ts';

/** What entering a stage means for a deal: still open, won, or lost. A deal's status is its stage's kind. */
export const STAGE_KINDS = ['OPEN', 'WON', 'LOST'] as const;
export const DEAL_STATUSES = STAGE_KINDS;
/** What the client wants to do (docs/decisions.md "Deal value sets"). */
export const DEAL_INTENTS = [
  'PURCHASE',
  'SALE',
  'RENTAL',
  'LETTING',
  'INVESTMENT',
  'VALUATION',
  'OTHER',
] as const;
/** Where the deal came from: the contact sources, so a deal can inherit its contact's. */
export const DEAL_LEAD_SOURCES = [
  'PORTAL',
  'WEBSITE',
  'FINDER',
  'BOOKING',
  'MESSAGING',
  'PHONE',
  'EMAIL',
  'WALK_IN',
  'REFERRAL',
  'SOCIAL',
  'IMPORT',
  'API',
  'OTHER',
] as const;
export const SAAS_BILLING_PERIODS = ['MONTHLY', 'QUARTERLY', 'YEARLY'] as const;
export const DEAL_SORTS = ['createdAt', 'updatedAt', 'value', 'expectedCloseDate', 'stageEnteredAt'] as const;

export type StageKind = (typeof STAGE_KINDS)[number];
export type DealStatus = StageKind;
export type DealIntent = (typeof DEAL_INTENTS)[number];
export type DealLeadSource = (typeof DEAL_LEAD_SOURCES)[number];
export type SaasBillingPeriod = (typeof SAAS_BILLING_PERIODS)[number];
export type DealSort = (typeof DEAL_SORTS)[number];

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A calendar date (midnight UTC) or a date-time with its offset. */
export const DATE_OR_DATE_TIME =
  '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$';
const DateOrDateTime = (description: string) =>
  Type.String({ pattern: DATE_OR_DATE_TIME, maxLength: 40, description });

// ---------------------------------------------------------------------------------------------
// Pipelines

export const PipelineStageSchema = Type.Object(
  {
    id: Type.String({ description: 'stg_… identifier' }),
    name: Type.String(),
    kind: StringEnum(STAGE_KINDS, { description: 'A deal entering the stage takes this as its status' }),
    probability: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'Win probability a deal takes when it enters the stage (WON 100, LOST 0)',
    }),
    position: Type.Integer({ minimum: 0, description: 'Order in the pipeline, from 0' }),
  },
  { $id: 'PipelineStage', additionalProperties: false },
);
export type PipelineStage = Static<typeof PipelineStageSchema>;

export const PipelineSchema = Type.Object(
  {
    id: Type.String({ description: 'pl_… identifier' }),
    name: Type.String(),
    isDefault: Type.Boolean({
      description: 'Deals created without a pipeline go here; exactly one per organization',
    }),
    stages: Type.Array(ref(PipelineStageSchema), { description: 'In order (position ascending)' }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'Pipeline', additionalProperties: false },
);
export type Pipeline = Static<typeof PipelineSchema>;

const stageName = Type.String({ minLength: 1, maxLength: 100 });
const stageProbability = Type.Integer({
  minimum: 0,
  maximum: 100,
  description:
    'Default: OPEN stages spread from 10 to 90 by position, WON 100, LOST 0 (the only values allowed there)',
});

const NewStageSchema = Type.Object(
  { name: stageName, kind: StringEnum(STAGE_KINDS), probability: Type.Optional(stageProbability) },
  { additionalProperties: false },
);

export const CreatePipelineBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    isDefault: Type.Optional(
      Type.Boolean({
        description: "Make it the organization's default pipeline; the first pipeline always is",
      }),
    ),
    stages: Type.Array(NewStageSchema, {
      minItems: 1,
      maxItems: 50,
      description: 'In order; at least one OPEN stage; names unique in the pipeline',
    }),
  },
  { $id: 'CreatePipelineBody', additionalProperties: false },
);
export type CreatePipelineBody = Static<typeof CreatePipelineBodySchema>;

const StageChangeSchema = Type.Object(
  {
    id: Type.Optional(
      Type.String({ description: 'A stage of this pipeline to keep; without id a stage is added' }),
    ),
    name: stageName,
    kind: StringEnum(STAGE_KINDS),
    probability: Type.Optional(stageProbability),
  },
  { additionalProperties: false },
);

export const UpdatePipelineBodySchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    isDefault: Type.Optional(
      Type.Boolean({
        description: '`true` makes it the default; `false` is refused on the default pipeline',
      }),
    ),
    stages: Type.Optional(
      Type.Array(StageChangeSchema, {
        minItems: 1,
        maxItems: 50,
        description:
          'The whole new list, in order: stages with `id` are kept (renamed, reordered), stages without are ' +
          'added, stages left out are removed (409 while deals are in them). A stage holding deals keeps its kind',
      }),
    ),
  },
  { $id: 'UpdatePipelineBody', additionalProperties: false, minProperties: 1 },
);
export type UpdatePipelineBody = Static<typeof UpdatePipelineBodySchema>;
export type StageChange = Static<typeof StageChangeSchema>;

export const PipelineResponseSchema = DataOf(ref(PipelineSchema));
export const PipelineListResponseSchema = ListOf(ref(PipelineSchema));
export const ListPipelinesQuerySchema = Type.Object({ ...pageQuery() }, { additionalProperties: false });
export type ListPipelinesQuery = Static<typeof ListPipelinesQuerySchema>;

export const OrgPipelineParamsSchema = Type.Object(
  { orgId: Type.String(), pipelineId: Type.String() },
  { additionalProperties: false },
);

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
    contactId: Type.String(),
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

/** Fields a deal takes on creation and in a PATCH (besides its place in a pipeline). */
const writableFields = {
  title: Type.String({ minLength: 1, maxLength: 200 }),
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
  },
);
export type CreateDealBody = Static<typeof CreateDealBodySchema>;

export const UpdateDealBodySchema = Type.Object(
  {
    ...optional,
    contactId: Type.Optional(Type.String({ description: 'ct_… of a contact of the organization' })),
    pipelineId: Type.Optional(Type.String({ description: 'Refused: move the deal instead' })),
    stageId: Type.Optional(Type.String({ description: 'Refused: move the deal instead' })),
  },
  {
    $id: 'UpdateDealBody',
    additionalProperties: false,
    minProperties: 1,
    description: 'Any writable field; the stage changes only through POST …/deals/{dealId}/move',
  },
);
export type UpdateDealBody = Static<typeof UpdateDealBodySchema>;

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
  },
  { additionalProperties: false },
);
export type ListDealsQuery = Static<typeof ListDealsQuerySchema>;
/** The filters and sort of a deal list (the query without paging), as the MCP tools pass them too. */
export type DealFilter = Omit<ListDealsQuery, 'page' | 'pageSize'>;

export const DealResponseSchema = DataOf(ref(DealSchema));
export const DealListResponseSchema = ListOf(ref(DealSchema));
export const DeletedResponseSchema = DataOf(
  Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { additionalProperties: false }),
);

export const DealIdParamsSchema = Type.Object({ id: Type.String() }, { additionalProperties: false });
export const OrgDealParamsSchema = Type.Object(
  { orgId: Type.String(), dealId: Type.String() },
  { additionalProperties: false },
);

export const dealsSchemas: TSchema[] = [
  PipelineStageSchema,
  PipelineSchema,
  CreatePipelineBodySchema,
  UpdatePipelineBodySchema,
  DealSchema,
  CreateDealBodySchema,
  UpdateDealBodySchema,
  MoveDealBodySchema,
];
