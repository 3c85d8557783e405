import { Type, type Static } from '@fastify/type-provider-typebox';
import { ListOf, pageRequest } from '../../platform/http/pagination.ts';
import { ref } from '../../platform/http/schemas.ts';
import {
  defineTool,
  type McpCountDefinition,
  pagedArguments,
  pageSummary,
} from '../../platform/mcp/mcp-tool.ts';
import { ListTasksQuerySchema, TaskSchema } from './tasks.schema.ts';
import { listPendingTasks } from './tasks.service.ts';

const { page, pageSize, assigneeId, dueBefore } = ListTasksQuerySchema.properties;
const ListPendingTasksInputSchema = Type.Object(
  { assigneeId, dueBefore, page, pageSize },
  { additionalProperties: false },
);

export const listPendingTasksTool = defineTool({
  name: 'list_pending_tasks',
  title: 'List pending tasks',
  description:
    "The agency's to-dos that are still PENDING (calls to make, follow-ups, booking notifications...), soonest " +
    "due first, undated ones last. `assigneeId` (agt_…) keeps one agent's; `dueBefore` (strict; a date means " +
    "its midnight UTC, or a date-time with offset) keeps those due by then — pass today's date for overdue " +
    'work. Paged: `page` from 1, `pageSize` up to 100 (default 20).',
  scopes: ['tasks:read'],
  input: ListPendingTasksInputSchema,
  output: ListOf(ref(TaskSchema)),
  run: ({ db, caller }, args: Static<typeof ListPendingTasksInputSchema>) => {
    const { filter, page } = pagedArguments(args);
    return listPendingTasks(db, caller, filter, page);
  },
  summarize: (result) => pageSummary(result, 'pending task'),
});

export const tasksMcpTools = [listPendingTasksTool];

/** The MCP summary's counts of the tasks feature. */
export const tasksMcpCounts: McpCountDefinition[] = [
  {
    name: 'pendingTasks',
    description: 'Tasks still PENDING (tasks:read)',
    scope: 'tasks:read',
    count: async ({ db, caller }) =>
      (await listPendingTasks(db, caller, {}, pageRequest({ page: 1, pageSize: 1 }))).meta.total,
  },
  {
    name: 'overdueTasks',
    description: 'PENDING tasks due before now (tasks:read)',
    scope: 'tasks:read',
    count: async ({ db, caller }, now) =>
      (await listPendingTasks(db, caller, { dueBefore: now }, pageRequest({ page: 1, pageSize: 1 }))).meta
        .total,
  },
];
