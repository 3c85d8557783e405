import { Type, type Static } from '@fastify/type-provider-typebox';
import { ListOf } from '../../platform/http/pagination.ts';
import { ref } from '../../platform/http/schemas.ts';
import { defineTool, pagedArguments, pageSummary } from '../../platform/mcp/mcp-tool.ts';
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
