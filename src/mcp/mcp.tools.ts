import { FEATURES } from '../features.ts';
import type { FeatureManifest } from '../platform/features/manifest.ts';
import type { McpToolDefinition } from '../platform/mcp/mcp-tool.ts';
import { summaryTool } from './mcp.summary.ts';

/**
 * Every tool of the MCP endpoint: the ones the features contribute (their manifests' `mcpTools`, in
 * feature-list order), after get_summary, which describes them all with the features' `mcpCounts`.
 */
export function mcpToolsOf(features: readonly FeatureManifest[]): McpToolDefinition[] {
  const tools = features.flatMap((feature) => feature.mcpTools ?? []);
  const counts = features.flatMap((feature) => feature.mcpCounts ?? []);
  return [summaryTool(tools, counts), ...tools];
}

/** The tools of src/features.ts's features. */
export const MCP_TOOLS: McpToolDefinition[] = mcpToolsOf(FEATURES);
