import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { ListOf, pageQuery, syncQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, ref, StringEnum, Nullable } from '../../platform/http/schemas.ts';
import { DateOrDateTime } from '../../platform/http/dates.ts';
import { TASK_STATUSES, TASK_TYPES } from '../../db/schema.ts';

// The value sets of stored columns live beside their table, which is typed with them (decision 0248).
export { TASK_STATUSES, TASK_TYPES, type TaskStatus, type TaskType } from '../../db/schema.ts';
export const TASK_SORTS = ['dueAt', 'createdAt'] as const;

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

export const TaskSchema = Type.Object(
  {
    id: Type.String({ description: 'task_… identifier' }),
    title: Type.String(),
    description: Nullable(Type.String()),
    type: StringEnum(TASK_TYPES),
    status: StringEnum(TASK_STATUSES),
    dueAt: Nullable(DateTime()),
    assigneeId: Nullable(Type.String({ description: 'The agent who should do it' })),
    contactId: Nullable(Type.String({ description: 'The contact it is about' })),
    appointmentId: Nullable(
      Type.String({ description: 'The appointment it belongs to (booking notifications)' }),
    ),
    completedAt: Nullable(DateTime({ description: 'When it was marked DONE; null otherwise' })),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'Task', additionalProperties: false },
);
export type Task = Static<typeof TaskSchema>;

const writableFields = {
  title: Type.String({ minLength: 1, maxLength: 200 }),
  description: Nullable(Type.String({ maxLength: 5000 })),
  type: StringEnum(TASK_TYPES),
  status: StringEnum(TASK_STATUSES, { description: 'DONE sets completedAt; leaving DONE clears it' }),
  dueAt: Nullable(DateTime({ description: 'An instant with its offset' })),
  assigneeId: Nullable(Id('An agent of the organization (agt_…)')),
  contactId: Nullable(Id('A contact of the organization (ct_…)')),
  appointmentId: Nullable(Id('An appointment of the organization (apt_…)')),
};

export const CreateTaskBodySchema = Type.Object(
  {
    title: writableFields.title,
    description: Type.Optional(writableFields.description),
    type: Type.Optional(StringEnum(TASK_TYPES, { description: 'Default TODO' })),
    status: Type.Optional(StringEnum(TASK_STATUSES, { description: 'Default PENDING' })),
    dueAt: Type.Optional(writableFields.dueAt),
    assigneeId: Type.Optional(writableFields.assigneeId),
    contactId: Type.Optional(writableFields.contactId),
    appointmentId: Type.Optional(writableFields.appointmentId),
  },
  { $id: 'CreateTaskBody', additionalProperties: false },
);
export type CreateTaskBody = Static<typeof CreateTaskBodySchema>;

export const UpdateTaskBodySchema = Type.Object(Type.Partial(Type.Object(writableFields)).properties, {
  $id: 'UpdateTaskBody',
  additionalProperties: false,
  minProperties: 1,
  examples: [{ status: 'DONE' }],
});
export type UpdateTaskBody = Static<typeof UpdateTaskBodySchema>;

export const ListTasksQuerySchema = Type.Object(
  {
    ...pageQuery(),
    status: Type.Optional(StringEnum(TASK_STATUSES)),
    type: Type.Optional(StringEnum(TASK_TYPES)),
    assigneeId: Type.Optional(Type.String({ maxLength: 64 })),
    contactId: Type.Optional(Type.String({ maxLength: 64 })),
    dueAfter: Type.Optional(DateOrDateTime('dueAt at or after (a date means its start, UTC)')),
    dueBefore: Type.Optional(DateOrDateTime('dueAt strictly before (a date means its start, UTC)')),
    sortBy: Type.Optional(StringEnum(TASK_SORTS, { description: 'Default dueAt' })),
    sortOrder: Type.Optional(
      StringEnum(['asc', 'desc'] as const, {
        description: 'Default asc (soonest due first); tasks without dueAt come last either way',
      }),
    ),
    ...syncQuery(),
  },
  { additionalProperties: false },
);
export type ListTasksQuery = Static<typeof ListTasksQuerySchema>;

export const TaskIdParamsSchema = Type.Object({ id: Type.String() }, { additionalProperties: false });
export const OrgTaskParamsSchema = Type.Object(
  { orgId: Type.String(), taskId: Type.String() },
  { additionalProperties: false },
);

export const TaskResponseSchema = DataOf(ref(TaskSchema));
export const TaskListResponseSchema = ListOf(ref(TaskSchema), { cursorMode: true });

export const tasksSchemas: TSchema[] = [TaskSchema, CreateTaskBodySchema, UpdateTaskBodySchema];
