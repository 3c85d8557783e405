import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, NotBlank, StringEnum, ref } from '../../platform/http/schemas.ts';
import { STAGE_KINDS } from '../../db/schema.ts';

// The value sets of stored columns live beside their table, which is typed with them (decision 0248).
export { STAGE_KINDS, type StageKind } from '../../db/schema.ts';

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

const stageName = NotBlank({ minLength: 1, maxLength: 100 });
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
    name: NotBlank({ minLength: 1, maxLength: 100 }),
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
    name: Type.Optional(NotBlank({ minLength: 1, maxLength: 100 })),
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
  {
    $id: 'UpdatePipelineBody',
    additionalProperties: false,
    minProperties: 1,
    // A rename: `stages` is the whole new list (sampled, one stage would replace them all).
    examples: [{ name: 'Residential sales' }],
  },
);
export type UpdatePipelineBody = Static<typeof UpdatePipelineBodySchema>;
export type StageChange = Static<typeof StageChangeSchema>;

export const PipelineResponseSchema = DataOf(ref(PipelineSchema));
export const PipelineListResponseSchema = ListOf(ref(PipelineSchema));
export const ListPipelinesQuerySchema = Type.Object({ ...pageQuery() }, { additionalProperties: false });
export type ListPipelinesQuery = Static<typeof ListPipelinesQuerySchema>;

export const PipelineIdParamsSchema = Type.Object({ id: Type.String() }, { additionalProperties: false });

export const pipelinesSchemas: TSchema[] = [
  PipelineStageSchema,
  PipelineSchema,
  CreatePipelineBodySchema,
  UpdatePipelineBodySchema,
];
