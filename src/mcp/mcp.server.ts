import type { TSchema } from '@fastify/type-provider-typebox';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { toAppError } from '../platform/errors/error-handler.ts';
import type { AppError } from '../platform/errors/errors.ts';
import type { McpToolContext, McpToolDefinition } from '../platform/mcp/mcp-tool.ts';
import { maskText } from '../platform/text/mask.ts';
import { maskPersonalData, withoutEmailFormat } from './mcp.mask.ts';

export const MCP_SERVER_NAME = 'agency-crm';
export const MCP_SERVER_VERSION = '1.0.0';

const INSTRUCTIONS =
  "Read-only access to one real-estate agency's CRM: published properties, contacts, appointments, " +
  'pipelines and deals, pending tasks. Call get_summary first: it says which tools this key may use. ' +
  'Lists are paged (page, pageSize; meta.total tells how many match, exactly up to 10,000). Nothing here can change data.';

/** A tool with its schemas converted, once at start-up, into what the SDK validates with. */
export interface CompiledTool {
  definition: McpToolDefinition;
  input: z.ZodType;
  output: z.ZodType;
  /** The output schema for an organization that masks personal data (decision 0207). */
  maskedOutput: z.ZodType;
}

/**
 * Replaces `$ref`s to named schemas (`Contact#`) with the schemas themselves: the SDK wants one
 * self-contained schema per tool. Symbols (TypeBox's kinds) and `$id`s are dropped on the way.
 */
function inlineRefs(schema: unknown, named: Record<string, unknown>, seen: string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inlineRefs(item, named, seen));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const id = ref.replace(/#$/, '');
    const target = named[id];
    if (target === undefined || seen.includes(id)) throw new Error(`MCP schema: cannot inline $ref ${ref}`);
    return inlineRefs(target, named, [...seen, id]);
  }
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key !== '$id') copy[key] = inlineRefs(value, named, seen);
  }
  return copy;
}

function toZod(schema: TSchema, named: Record<string, unknown>, what: string): z.ZodType {
  const plain = inlineRefs(schema, named) as { type?: unknown };
  if (plain.type !== 'object') throw new Error(`MCP ${what} must be an object schema`);
  return z.fromJSONSchema(plain as Parameters<typeof z.fromJSONSchema>[0]);
}

/** Converts every tool's TypeBox schemas (refs resolved against `named`, Fastify's shared schemas). */
export function compileTools(tools: McpToolDefinition[], named: Record<string, unknown>): CompiledTool[] {
  const names = new Set<string>();
  return tools.map((definition) => {
    if (names.has(definition.name)) throw new Error(`MCP tool ${definition.name} is declared twice`);
    names.add(definition.name);
    return {
      definition,
      input: toZod(definition.input, named, `${definition.name} input`),
      output: toZod(definition.output, named, `${definition.name} output`),
      maskedOutput: toZod(
        withoutEmailFormat(inlineRefs(definition.output, named)) as TSchema,
        {},
        `${definition.name} output`,
      ),
    };
  });
}

/** `query.radiusKm` -> `radiusKm`: services name fields as REST sees them; tools name arguments. */
function argumentNames(text: string): string {
  return text.replace(/\b(query|body|path|header)\./g, '');
}

function refusal(error: AppError): string {
  const message =
    error.details && error.details.length > 0
      ? error.details.map((detail) => `${detail.field} ${detail.message}`).join('; ')
      : error.message;
  const named = argumentNames(message);
  return error.code === 'VALIDATION_ERROR' ? `Invalid arguments: ${named}` : `${error.code}: ${named}`;
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** The missing scopes of `tool` for this key, as the refusal names them. */
export function missingScopes(tool: McpToolDefinition, context: Pick<McpToolContext, 'caller'>) {
  return tool.scopes.filter((scope) => !context.caller.scopes.includes(scope));
}

/**
 * Runs one tool call: scopes first (a tool error naming what is missing), then the tool. Its result
 * goes out as `structuredContent`, with a one-line summary and, for clients that read only text, the
 * same JSON as text (MCP spec: structured content SHOULD be mirrored in a text block). A refusal of
 * the feature (400, 404, 403...) becomes a tool error in words; anything else is logged and reported
 * by request id only, so no SQL or stack reaches the model.
 */
async function callTool(
  tool: McpToolDefinition,
  context: McpToolContext,
  args: unknown,
): Promise<CallToolResult> {
  const missing = missingScopes(tool, context);
  if (missing.length > 0) {
    context.log.info({ tool: tool.name, missing }, 'mcp tool refused: scope');
    return toolError(
      `FORBIDDEN: This API key lacks the scope ${missing.join(' and ')}, which ${tool.name} needs. ` +
        'get_summary lists the tools this key may use.',
    );
  }
  try {
    const raw = await tool.run(context, args);
    context.log.info({ tool: tool.name }, 'mcp tool call');
    // One place masks every tool's result, so no tool can leak what the organization hides.
    const masked = context.caller.organization.mcpMaskPersonalData;
    const result = masked ? maskPersonalData(raw) : raw;
    const summary = tool.summarize(raw, args);
    return {
      content: [
        { type: 'text', text: masked ? maskText(summary) : summary },
        { type: 'text', text: JSON.stringify(result) },
      ],
      structuredContent: result as Record<string, unknown>,
    };
  } catch (thrown) {
    const error = toAppError(thrown);
    if (error.statusCode >= 500) {
      context.log.error({ err: error.cause ?? thrown, tool: tool.name }, 'mcp tool failed');
      return toolError(
        `INTERNAL_ERROR: ${tool.name} failed; quote request id ${context.requestId} to support`,
      );
    }
    context.log.info({ tool: tool.name, code: error.code, msg: error.message }, 'mcp tool refused');
    return toolError(refusal(error));
  }
}

/** One server per HTTP request (stateless Streamable HTTP): every tool, bound to this caller. */
export function buildMcpServer(tools: CompiledTool[], context: McpToolContext): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const masked = context.caller.organization.mcpMaskPersonalData;
  for (const { definition, input, output, maskedOutput } of tools) {
    server.registerTool(
      definition.name,
      {
        title: definition.title,
        description: definition.description,
        inputSchema: input,
        outputSchema: masked ? maskedOutput : output,
        annotations: {
          title: definition.title,
          readOnlyHint: true,
          idempotentHint: true,
          destructiveHint: false,
          openWorldHint: false,
        },
      },
      (args: unknown) => callTool(definition, context, args),
    );
  }
  // registerTool announces `tools.listChanged: true`; a stateless endpoint (one server per request, no
  // stream kept open) never sends that notification, and the list only changes with a new release.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}
