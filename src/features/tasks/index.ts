// Tasks: the back office, v1 reads and writes, and pending-task summaries.
import { tasksPersonalData } from './tasks.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { TaskCreated, TaskDeleted, TaskUpdated } from './tasks.events.ts';
import { tasksMcpTools, tasksMcpCounts } from './tasks.mcp.ts';
import { tasksRoutes } from './tasks.routes.ts';
import { tasksSchemas } from './tasks.schema.ts';

export { createTask, insertTaskInTx, listPendingTasks } from './tasks.service.ts';
export { handOverTasks } from './tasks.handover.ts';

/** The tasks feature's manifest (src/features.ts lists it). */
export const tasksFeature = defineFeature({
  name: 'tasks',
  personalData: tasksPersonalData,
  scopes: [
    { name: 'tasks:read', description: 'reads tasks' },
    {
      name: 'tasks:write',
      description: 'creates, changes and completes tasks (support approval)',
      approval: true,
    },
  ],
  tags: [
    { name: 'Tasks', description: 'Follow-up tasks of the agents' },
    { name: 'Admin: tasks', description: 'Tasks of any agent (admin)' },
  ],
  examples: {
    ids: {
      assigneeId: 'agt',
      taskId: 'task',
    },
  },
  schemas: tasksSchemas,
  routes: [tasksRoutes],
  mcpTools: tasksMcpTools,
  mcpCounts: tasksMcpCounts,
  events: [TaskCreated, TaskUpdated, TaskDeleted],
});
