import type { Static, TSchema } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { pageRequest, type PageRequest } from '../http/pagination.ts';
import type { Caller } from '../auth/caller.ts';
import type { Scope } from '../auth/scopes.ts';

/** What a tool runs with: the database and the caller, resolved by the auth hook from the bearer key. */
export interface McpToolContext {
  db: Database;
  caller: Caller;
  /** The operator's settings, as the REST routes have them (EMAIL_FROM names the Message-IDs' domain). */
  config: Config;
  log: FastifyBaseLogger;
  /** The HTTP request's id (X-Request-Id), quoted in internal-error messages. */
  requestId: string;
}

/**
 * One MCP tool a feature contributes (its `<feature>.mcp.ts`). Schemas are TypeBox, like the REST
 * routes' (the MCP layer converts them for the SDK), so a tool and its REST twin share field names,
 * enums and limits. Tools only read: they call the feature's read services, never SQL.
 */
export interface McpTool<I extends TSchema, O extends TSchema> {
  /** snake_case, the name a model calls. */
  name: string;
  title: string;
  /** Written for a model: what it answers, when to use it, how its arguments combine. */
  description: string;
  /** Every scope the key must hold; a missing one is a tool error naming it. */
  scopes: readonly Scope[];
  /** An object schema of the arguments (named shared schemas may be referenced with `ref`). */
  input: I;
  /** An object schema of `structuredContent`. */
  output: O;
  run(context: McpToolContext, args: Static<I>): Promise<Static<O>>;
  /** One short line for the text content: what was found. */
  summarize(result: Static<O>, args: Static<I>): string;
}

/** A tool with its types erased, as the server collects them. */
export interface McpToolDefinition {
  name: string;
  title: string;
  description: string;
  scopes: readonly Scope[];
  input: TSchema;
  output: TSchema;
  run(context: McpToolContext, args: unknown): Promise<unknown>;
  summarize(result: unknown, args: unknown): string;
}

/** Declares a tool; the arguments reach `run` already validated against `input`. */
export function defineTool<I extends TSchema, O extends TSchema>(tool: McpTool<I, O>): McpToolDefinition {
  return tool as unknown as McpToolDefinition;
}

/**
 * One headline count of the MCP summary (`get_summary`), contributed by the feature that owns what it
 * counts (its manifest's `mcpCounts`): shown only to a key holding `scope`, read through the feature's
 * own list service.
 */
export interface McpCountDefinition {
  /** The field of `counts` (camelCase). */
  name: string;
  /** What it counts, naming the scope it needs in parentheses. */
  description: string;
  scope: Scope;
  count(context: McpToolContext, now: Date): Promise<number>;
}

/** "1 contact", "3 contacts". */
export function counted(total: number, singular: string, plural = `${singular}s`): string {
  return `${total} ${total === 1 ? singular : plural}`;
}

/** The usual summary of one page of a list. */
export function pageSummary(
  result: { data: unknown[]; meta: { total: number; page: number; totalPages: number } },
  singular: string,
  plural?: string,
): string {
  const { total, page, totalPages } = result.meta;
  if (total === 0) return `No ${plural ?? `${singular}s`} found.`;
  return `${counted(total, singular, plural)} found; page ${page} of ${totalPages} shows ${result.data.length}.`;
}

/** A list tool's arguments split into its filter and the page they ask for. */
export function pagedArguments<A extends { page?: number; pageSize?: number }>(
  args: A,
): { filter: Omit<A, 'page' | 'pageSize'>; page: PageRequest } {
  const { page, pageSize, ...filter } = args;
  return { filter, page: pageRequest({ page, pageSize }) };
}
