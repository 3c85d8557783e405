import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { principalOf } from '../../platform/auth/auth.plugin.ts';
import { actorOf } from '../../platform/auth/principal.ts';
import { CURSOR_MODE_DESCRIPTION } from '../../platform/http/pagination.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { OrganizationIdParamsSchema, DeletedResponseSchema } from '../../platform/http/schemas.ts';
import {
  CreateTaskBodySchema,
  ListTasksQuerySchema,
  OrgTaskParamsSchema,
  TaskIdParamsSchema,
  TaskListResponseSchema,
  TaskResponseSchema,
  UpdateTaskBodySchema,
} from './tasks.schema.ts';
import * as tasks from './tasks.service.ts';

const ADMIN = { admin: true } as const;
const ADMIN_TAGS = ['Admin: tasks'];
const READ = { auth: { scope: 'tasks:read', keyTypes: SECRET_KEYS, write: false } } as const;
// Changing the agents' to-do list is support-approved, like contact writes (decision 0195).
const WRITE = { auth: { scope: 'tasks:write', keyTypes: ['secret'], write: true, accessLevel: 3 } } as const;
const TAGS = ['Tasks'];
const WRITE_KEY = 'Secret key with `tasks:write` (access level 3).';
const NOT_FOUND = '404 when the id is malformed, unknown or of another organization.';

const CREATE_DESCRIPTION =
  'PENDING TODO unless given. `assigneeId`, `contactId` and `appointmentId` must be the ' +
  "organization's (400 naming the field). Records `task.created`.";
const UPDATE_DESCRIPTION =
  'Only the fields sent change. `status: DONE` sets `completedAt` (kept while DONE); any other status ' +
  'clears it. Null clears `description`, `dueAt` and the links. Records `task.updated` naming the fields sent.';

const LIST_DESCRIPTION =
  'Filters combine with AND: `status`, `type`, `assigneeId`, `contactId`, and `dueAfter` (at or after) / ' +
  '`dueBefore` (strictly before), which take a date (its midnight UTC) or a date-time and leave out undated ' +
  'tasks. Sorted by dueAt, soonest first, undated tasks last, unless `sortBy`/`sortOrder` say otherwise. ' +
  'A page past the end answers `data: []` with the true `meta`. ' +
  CURSOR_MODE_DESCRIPTION;

/** The agents' to-do list: read (tasks:read) and written (tasks:write) through v1, and managed in the back office. */
export const tasksRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/v1/tasks',
    {
      config: READ,
      schema: {
        operationId: 'tasks.list',
        summary: "List the agency's tasks",
        description: LIST_DESCRIPTION,
        tags: TAGS,
        querystring: ListTasksQuerySchema,
        response: { 200: TaskListResponseSchema },
      },
    },
    async (request) => tasks.searchTasks(db, principalOf(request).organization.id, request.query),
  );

  app.get(
    '/v1/tasks/:id',
    {
      config: READ,
      schema: {
        operationId: 'tasks.get',
        summary: 'Get a task',
        description:
          'Secret or read-only secret key with `tasks:read`. The task with its status, due date, assignee, ' +
          'contact and appointment, and `completedAt` while DONE. 404 when the id is malformed, unknown or ' +
          'of another organization (one answer for all three).',
        tags: TAGS,
        params: TaskIdParamsSchema,
        response: { 200: TaskResponseSchema },
      },
    },
    async (request) => ({
      data: await tasks.findTask(db, principalOf(request).organization.id, request.params.id),
    }),
  );

  app.post(
    '/v1/tasks',
    {
      config: WRITE,
      schema: {
        operationId: 'tasks.create',
        summary: 'Create a task',
        description: `${WRITE_KEY} ${CREATE_DESCRIPTION} Send an \`Idempotency-Key\` to retry safely.`,
        tags: TAGS,
        body: CreateTaskBodySchema,
        response: { 201: TaskResponseSchema },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const task = await tasks.createTask(db, principal.organization.id, request.body, actorOf(principal));
      return reply.code(201).send({ data: task });
    },
  );

  app.patch(
    '/v1/tasks/:id',
    {
      config: WRITE,
      schema: {
        operationId: 'tasks.update',
        summary: 'Change a task (reassign, reschedule, cancel, reopen)',
        description: `${WRITE_KEY} ${UPDATE_DESCRIPTION} ${NOT_FOUND}`,
        tags: TAGS,
        params: TaskIdParamsSchema,
        body: UpdateTaskBodySchema,
        response: { 200: TaskResponseSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { id } = request.params;
      return {
        data: await tasks.updateTask(db, principal.organization.id, id, request.body, actorOf(principal)),
      };
    },
  );

  app.post(
    '/v1/tasks/:id/complete',
    {
      config: WRITE,
      schema: {
        operationId: 'tasks.complete',
        summary: 'Mark a task done',
        description:
          `${WRITE_KEY} Takes no body. Sets \`status: DONE\` and \`completedAt\`, from PENDING or ` +
          'CANCELLED, and records `task.updated` with `changes: ["status"]`. A task already DONE is answered ' +
          `as it is (200, its first \`completedAt\`), and nothing is recorded. ${NOT_FOUND}`,
        tags: TAGS,
        params: TaskIdParamsSchema,
        response: { 200: TaskResponseSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { id } = request.params;
      return { data: await tasks.completeTask(db, principal.organization.id, id, actorOf(principal)) };
    },
  );

  app.delete(
    '/v1/tasks/:id',
    {
      config: WRITE,
      schema: {
        operationId: 'tasks.delete',
        summary: 'Delete a task',
        description:
          `${WRITE_KEY} Removes it for good and records \`task.deleted\` (a tombstone: its id and when). ` +
          NOT_FOUND,
        tags: TAGS,
        params: TaskIdParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { id } = request.params;
      return { data: await tasks.deleteTask(db, principal.organization.id, id, actorOf(principal)) };
    },
  );

  app.post(
    '/admin/v1/organizations/:orgId/tasks',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.tasks.create',
        summary: 'Create a task',
        description: CREATE_DESCRIPTION,
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        body: CreateTaskBodySchema,
        response: { 201: TaskResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await tasks.createTask(db, request.params.orgId, request.body) }),
  );

  app.get(
    '/admin/v1/organizations/:orgId/tasks',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.tasks.list',
        summary: "List an organization's tasks",
        description: LIST_DESCRIPTION,
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        querystring: ListTasksQuerySchema,
        response: { 200: TaskListResponseSchema },
      },
    },
    async (request) => tasks.listAdminTasks(db, request.params.orgId, request.query),
  );

  app.get(
    '/admin/v1/organizations/:orgId/tasks/:taskId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.tasks.get',
        summary: 'Get a task',
        description:
          'Admin bearer token. The task as GET /v1/tasks/{id} shows it. 404 when the organization is ' +
          'unknown or the task is not one of its.',
        tags: ADMIN_TAGS,
        params: OrgTaskParamsSchema,
        response: { 200: TaskResponseSchema },
      },
    },
    async (request) => ({ data: await tasks.getAdminTask(db, request.params.orgId, request.params.taskId) }),
  );

  app.patch(
    '/admin/v1/organizations/:orgId/tasks/:taskId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.tasks.update',
        summary: 'Change a task (complete, cancel, reassign, reschedule)',
        description: UPDATE_DESCRIPTION,
        tags: ADMIN_TAGS,
        params: OrgTaskParamsSchema,
        body: UpdateTaskBodySchema,
        response: { 200: TaskResponseSchema },
      },
    },
    async (request) => ({
      data: await tasks.updateTask(db, request.params.orgId, request.params.taskId, request.body),
    }),
  );

  app.delete(
    '/admin/v1/organizations/:orgId/tasks/:taskId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.tasks.delete',
        summary: 'Delete a task',
        description: 'Removes it for good. Records `task.deleted`.',
        tags: ADMIN_TAGS,
        params: OrgTaskParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => ({ data: await tasks.deleteTask(db, request.params.orgId, request.params.taskId) }),
  );
};
