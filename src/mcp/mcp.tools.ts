import { FEATURES } from '../features.ts';
import type { McpToolDefinition } from '../platform/mcp/mcp-tool.ts';
import { summaryTool } from './mcp.summary.ts';

/** The tools the features contribute (their manifests' `mcpTools`), in feature-list order. */
const FEATURE_TOOLS: McpToolDefinition[] = FEATURES.flatMap((feature) => feature.mcpTools ?? []);

/** Every tool of the MCP endpoint: the features' and get_summary, which describes them all. */
export const MCP_TOOLS: McpToolDefinition[] = [summaryTool(FEATURE_TOOLS), ...FEATURE_TOOLS];
