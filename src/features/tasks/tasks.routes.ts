import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { principalOf } from '../../platform/auth/auth.plugin.ts';
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
const TAGS = ['Tasks'];

const LIST_DESCRIPTION =
  'Filters combine with AND: `status`, `type`, `assigneeId`, `contactId`, and `dueAfter` (at or after) / ' +
  '`dueBefore` (strictly before), which take a date (its midnight UTC) or a date-time and leave out undated ' +
  'tasks. Sorted by dueAt, soonest first, undated tasks last, unless `sortBy`/`sortOrder` say otherwise. ' +
  'A page past the end answers `data: []` with the true `meta`. ' +
  CURSOR_MODE_DESCRIPTION;

/** The agents' to-do list: read through the v1 API (tasks:read) and managed in the back office. */
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
    '/admin/v1/organizations/:orgId/tasks',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.tasks.create',
        summary: 'Create a task',
        description:
          'PENDING TODO unless given. `assigneeId`, `contactId` and `appointmentId` must be the ' +
          "organization's (400 naming the field). Records `task.created`.",
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
        description:
          '`status: DONE` sets `completedAt` (kept while DONE); any other status clears it. Null clears ' +
          '`description`, `dueAt` and the links. Records `task.updated`.',
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
