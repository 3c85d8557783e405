import { Type, type TSchema } from '@fastify/type-provider-typebox';
import { describeKey, MeSchema } from '../features/me/index.ts';
import {
  defineTool,
  type McpCountDefinition,
  type McpToolContext,
  type McpToolDefinition,
} from '../platform/mcp/mcp-tool.ts';

const me = MeSchema.properties;
const Count = (description: string) => Type.Optional(Type.Integer({ minimum: 0, description }));

/** The summary's schema: its `counts` are those the features declare (manifests' `mcpCounts`). */
function summarySchema(counts: readonly McpCountDefinition[]) {
  return Type.Object(
    {
      organization: Type.Object(
        {
          id: Type.String(),
          name: Type.String(),
          plan: me.organization.properties.plan,
          livemode: Type.Boolean({ description: 'false for a test key (the test twin of the organization)' }),
          readOnly: Type.Boolean({ description: 'The account is in read-only mode (billing)' }),
        },
        { additionalProperties: false },
      ),
      key: Type.Object(
        {
          id: Type.String(),
          type: me.keyType,
          mode: me.mode,
          scopes: me.scopes,
          accessLevel: me.accessLevel,
          agentId: me.agentId,
        },
        { additionalProperties: false },
      ),
      tools: Type.Array(
        Type.Object(
          {
            name: Type.String(),
            available: Type.Boolean({ description: 'This key holds every scope the tool needs' }),
            scopes: Type.Array(Type.String(), { description: 'Scopes the tool needs' }),
            missingScopes: Type.Array(Type.String()),
          },
          { additionalProperties: false },
        ),
      ),
      counts: Type.Object(
        Object.fromEntries(counts.map((count) => [count.name, Count(count.description)])) as Record<
          string,
          TSchema
        >,
        {
          additionalProperties: false,
          description:
            "Headline counts; only those the key's scopes allow are present. Exact up to 10,000; a count past that reads 10,000 (at least)",
        },
      ),
    },
    { additionalProperties: false },
  );
}

/** Headline counts, each read through its feature's list service (one row plus its total). */
async function headlineCounts(
  context: McpToolContext,
  counts: readonly McpCountDefinition[],
): Promise<Record<string, number>> {
  const now = new Date();
  const result: Record<string, number> = {};
  for (const count of counts) {
    if (context.caller.scopes.includes(count.scope)) result[count.name] = await count.count(context, now);
  }
  return result;
}

/** `get_summary`: who the key is, what it may use (over `tools`, itself included), and headline counts. */
export function summaryTool(
  tools: McpToolDefinition[],
  counts: readonly McpCountDefinition[],
): McpToolDefinition {
  const tool: McpToolDefinition = defineTool({
    name: 'get_summary',
    title: 'Summary of this connection',
    description:
      'Start here. Says which agency this key belongs to (name, plan, live or test), the key itself (type, ' +
      'scopes, access level), which tools it may use (and the scopes the others miss), and headline counts ' +
      '(published properties, contacts, open deals, pending and overdue tasks, upcoming appointments) for the ' +
      'scopes it holds. Takes no arguments.',
    scopes: [],
    input: Type.Object({}, { additionalProperties: false }),
    output: summarySchema(counts),
    run: async (context) => {
      const key = describeKey(context.caller);
      const held = context.caller.scopes as readonly string[];
      return {
        organization: {
          id: key.organization.id,
          name: key.organization.name,
          plan: key.organization.plan,
          livemode: key.organization.livemode,
          readOnly: key.organization.readOnly,
        },
        key: {
          id: key.apiKeyId,
          type: key.keyType,
          mode: key.mode,
          scopes: [...key.scopes],
          accessLevel: key.accessLevel,
          agentId: key.agentId,
        },
        tools: [...tools, tool].map((each) => {
          const missingScopes = each.scopes.filter((scope) => !held.includes(scope));
          return {
            name: each.name,
            available: missingScopes.length === 0,
            scopes: [...each.scopes],
            missingScopes,
          };
        }),
        counts: await headlineCounts(context, counts),
      };
    },
    summarize: (result) => {
      const usable = result.tools.filter((each) => each.available).length;
      return (
        `${result.organization.name} (${result.organization.plan}, ${result.organization.livemode ? 'live' : 'test'}): ` +
        `${result.key.type} key with ${result.key.scopes.length} scopes; ${usable} of ${result.tools.length} tools available.`
      );
    },
  });
  return tool;
}
