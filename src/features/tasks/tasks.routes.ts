import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { CURSOR_MODE_DESCRIPTION } from '../../platform/http/pagination.ts';
import { adminMount, defineOperation, keyMount, mountOperations } from '../../platform/http/operation.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { DeletedResponseSchema } from '../../platform/http/schemas.ts';
import {
  CreateTaskBodySchema,
  ListTasksQuerySchema,
  TaskIdParamsSchema,
  TaskListResponseSchema,
  TaskResponseSchema,
  UpdateTaskBodySchema,
} from './tasks.schema.ts';
import * as tasks from './tasks.service.ts';

const ADMIN = adminMount(['Admin: tasks']);
const TAGS = ['Tasks'];
const READ = keyMount({ scope: 'tasks:read', keyTypes: SECRET_KEYS, write: false }, TAGS);
// Changing the agents' to-do list is support-approved, like contact writes (decision 0195).
const WRITE = keyMount({ scope: 'tasks:write', keyTypes: ['secret'], write: true, accessLevel: 3 }, TAGS);
const NOT_FOUND = '404 when the id is malformed, unknown or of another organization.';

const CREATE_DESCRIPTION =
  'PENDING TODO unless given. `assigneeId`, `contactId` and `appointmentId` must be the ' +
  "organization's (400 naming the field). Records `task.created`. Send an `Idempotency-Key` to retry safely.";
const UPDATE_DESCRIPTION =
  'Only the fields sent change. `status: DONE` sets `completedAt` (kept while DONE); any other status ' +
  'clears it. Null clears `description`, `dueAt` and the links. Records `task.updated` naming the fields sent.';

const LIST_DESCRIPTION =
  'Filters combine with AND: `status`, `type`, `assigneeId`, `contactId`, and `dueAfter` (at or after) / ' +
  '`dueBefore` (strictly before), which take a date (its midnight UTC) or a date-time and leave out undated ' +
  'tasks. Sorted by dueAt, soonest first, undated tasks last, unless `sortBy`/`sortOrder` say otherwise. ' +
  'A page past the end answers `data: []` with the true `meta`. ' +
  CURSOR_MODE_DESCRIPTION;

/**
 * The agents' to-do list, each operation declared once and mounted on v1 (tasks:read, tasks:write) and
 * in the back office (decision 0241): one service call with the caller either credential resolves to.
 */
const operations = (db: Database) => [
  defineOperation({
    id: 'tasks.list',
    method: 'GET',
    path: '/tasks',
    summary: "List the agency's tasks",
    description: LIST_DESCRIPTION,
    querystring: ListTasksQuerySchema,
    response: { 200: TaskListResponseSchema },
    mounts: [READ, ADMIN],
    handle: (caller, { query }) => tasks.listTasks(db, caller, query),
  }),
  defineOperation({
    id: 'tasks.get',
    method: 'GET',
    path: '/tasks/:id',
    summary: 'Get a task',
    description:
      'The task with its status, due date, assignee, contact and appointment, and `completedAt` while DONE. ' +
      '404 when the id is malformed, unknown or of another organization (one answer for all three).',
    params: TaskIdParamsSchema,
    response: { 200: TaskResponseSchema },
    mounts: [READ, ADMIN],
    handle: async (caller, { params }) => ({ data: await tasks.findTask(db, caller, params.id) }),
  }),
  defineOperation({
    id: 'tasks.create',
    method: 'POST',
    path: '/tasks',
    summary: 'Create a task',
    description: CREATE_DESCRIPTION,
    body: CreateTaskBodySchema,
    response: { 201: TaskResponseSchema },
    status: 201,
    mounts: [WRITE, ADMIN],
    handle: async (caller, { body }) => ({ data: await tasks.createTask(db, caller, body) }),
  }),
  defineOperation({
    id: 'tasks.update',
    method: 'PATCH',
    path: '/tasks/:id',
    summary: 'Change a task (reassign, reschedule, complete, cancel, reopen)',
    description: `${UPDATE_DESCRIPTION} ${NOT_FOUND}`,
    params: TaskIdParamsSchema,
    body: UpdateTaskBodySchema,
    response: { 200: TaskResponseSchema },
    mounts: [WRITE, ADMIN],
    handle: async (caller, { params, body }) => ({
      data: await tasks.updateTask(db, caller, params.id, body),
    }),
  }),
  defineOperation({
    id: 'tasks.complete',
    method: 'POST',
    path: '/tasks/:id/complete',
    summary: 'Mark a task done',
    description:
      'Takes no body. Sets `status: DONE` and `completedAt`, from PENDING or CANCELLED, and records ' +
      '`task.updated` with `changes: ["status"]`. A task already DONE is answered as it is (200, its first ' +
      `\`completedAt\`), and nothing is recorded. ${NOT_FOUND}`,
    params: TaskIdParamsSchema,
    response: { 200: TaskResponseSchema },
    mounts: [WRITE],
    handle: async (caller, { params }) => ({ data: await tasks.completeTask(db, caller, params.id) }),
  }),
  defineOperation({
    id: 'tasks.delete',
    method: 'DELETE',
    path: '/tasks/:id',
    summary: 'Delete a task',
    description: `Removes it for good and records \`task.deleted\` (a tombstone: its id and when). ${NOT_FOUND}`,
    params: TaskIdParamsSchema,
    response: { 200: DeletedResponseSchema },
    mounts: [WRITE, ADMIN],
    handle: async (caller, { params }) => ({ data: await tasks.deleteTask(db, caller, params.id) }),
  }),
];

/** The tasks routes: every operation on each surface that offers it. */
export const tasksRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  mountOperations(app, operations(db));
};
