import { Type } from '@fastify/type-provider-typebox';
import { defineEvent, tombstoneSchema } from '../../platform/events/catalog.ts';
import { TaskSchema } from './tasks.schema.ts';

// Inline (no $ref): the catalog and samples show the payload whole. The task is the API's Task.
const TaskPayload = Type.Object(TaskSchema.properties, { additionalProperties: false });

const example = {
  id: 'task_0VhJ3kQ2Zt8mX1pR4sT6uD',
  title: 'Call Marta about the second visit',
  description: 'She asked to see the storage room.',
  type: 'CALL' as const,
  status: 'PENDING' as const,
  dueAt: '2027-03-30T09:00:00.000Z',
  assigneeId: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uA',
  contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uC',
  appointmentId: null,
  completedAt: null,
  createdAt: '2027-03-29T10:15:00.000Z',
  updatedAt: '2027-03-29T10:15:00.000Z',
};

export const TaskCreated = defineEvent({
  type: 'task.created',
  description:
    'A task was created, in the back office or through POST /v1/tasks. (A booking notifies its agent with a NOTIFICATION task that ' +
    'comes with `appointment.created` instead.)',
  schema: Type.Object({ task: TaskPayload }, { additionalProperties: false }),
  example: { task: example },
});

export const TaskUpdated = defineEvent({
  type: 'task.updated',
  description:
    'A task changed (done, cancelled, reassigned, rescheduled), in the back office or through v1. ' +
    '`data.changes` names the fields sent; POST /v1/tasks/{id}/complete sends `["status"]`.',
  schema: Type.Object(
    { task: TaskPayload, changes: Type.Array(Type.String()) },
    { additionalProperties: false },
  ),
  example: {
    task: {
      ...example,
      status: 'DONE' as const,
      completedAt: '2027-03-30T08:40:00.000Z',
      updatedAt: '2027-03-30T08:40:00.000Z',
    },
    changes: ['status'],
  },
});

export const TaskDeleted = defineEvent({
  type: 'task.deleted',
  description:
    'A task was deleted, in the back office or through v1. `data.task` is a tombstone: its id and when it was ' +
    'deleted.',
  schema: tombstoneSchema('task'),
  example: { task: { id: example.id, deletedAt: '2027-03-29T10:15:00.000Z' } },
});
