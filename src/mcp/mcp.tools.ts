import { appointmentsMcpTools } from '../features/appointments/appointments.mcp.ts';
import { contactsMcpTools } from '../features/contacts/contacts.mcp.ts';
import { dealsMcpTools } from '../features/deals/deals.mcp.ts';
import { finderMcpTools } from '../features/finder/finder.mcp.ts';
import { propertiesMcpTools } from '../features/properties/properties.mcp.ts';
import { tasksMcpTools } from '../features/tasks/tasks.mcp.ts';
import type { McpToolDefinition } from './mcp-tool.ts';
import { summaryTool } from './mcp.summary.ts';

/** The tools the features contribute, in the order tools/list shows them. */
const FEATURE_TOOLS: McpToolDefinition[] = [
  ...propertiesMcpTools,
  ...contactsMcpTools,
  ...appointmentsMcpTools,
  ...dealsMcpTools,
  ...tasksMcpTools,
  ...finderMcpTools,
];

/** Every tool of the MCP endpoint: the features' and get_summary, which describes them all. */
export const MCP_TOOLS: McpToolDefinition[] = [summaryTool(FEATURE_TOOLS), ...FEATURE_TOOLS];
