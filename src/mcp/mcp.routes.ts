import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { callerOf } from '../platform/auth/auth.plugin.ts';
import { Errors } from '../platform/errors/errors.ts';
import { SECRET_KEYS } from '../platform/http/route-config.ts';
import { ErrorResponseSchema, ref } from '../platform/http/schemas.ts';
import type { McpToolDefinition } from '../platform/mcp/mcp-tool.ts';
import { McpMessageSchema, McpResponseSchema } from './mcp.schema.ts';
import { buildMcpServer, compileTools } from './mcp.server.ts';
import { MCP_TOOLS } from './mcp.tools.ts';

export const MCP_PATH = '/mcp';
/** The MCP endpoint's section of the reference. */
export const MCP_TAG = {
  name: 'MCP',
  description: 'Read-only Model Context Protocol endpoint for AI agents (docs/mcp.md)',
};
const TAGS = [MCP_TAG.name];

const POST_DESCRIPTION =
  'The Model Context Protocol over Streamable HTTP, stateless: every POST carries one JSON-RPC message and gets ' +
  'its JSON answer (no session id, no server-sent events). Send `Authorization: Bearer <secret key>` (secret or ' +
  'read-only secret; `X-API-Key` is not accepted here) and `Accept: application/json, text/event-stream`. ' +
  "The key's rate limit counts every POST. Every tool is read-only; a tool whose scope the key lacks answers a " +
  'tool error naming the scope. docs/mcp.md lists the tools and client set-ups.';

const notAMessage = () =>
  Errors.validation(
    'body is not a JSON-RPC 2.0 message: send a request (id and method), a notification (method) ' +
      'or a response (id and result, or id and error with code and message)',
    [{ field: 'body', message: 'is not a JSON-RPC 2.0 request, notification or response' }],
  );

/** The MCP endpoint (SPEC.md "MCP endpoint"): POST only, bearer secret keys, per-tool scopes. */
export const mcpRoutes: FastifyPluginAsyncTypebox<{
  db: Database;
  config: Config;
  tools?: McpToolDefinition[];
}> = async (app, { db, config, tools = MCP_TOOLS }) => {
  // Converted once: a request only builds the server and registers the ready tools.
  const compiled = compileTools(tools, app.getSchemas());

  app.post(
    MCP_PATH,
    {
      config: {
        // No route-wide scope: each tool checks its own, so a key sees every tool and why one is refused.
        auth: { scope: null, keyTypes: SECRET_KEYS, write: false, bearer: true },
        idempotency: false,
      },
      schema: {
        operationId: 'mcp.call',
        summary: 'MCP: one JSON-RPC message',
        description: POST_DESCRIPTION,
        tags: TAGS,
        body: McpMessageSchema,
        response: {
          200: ref(McpResponseSchema),
          202: { type: 'null', description: 'A notification or response was accepted (no body)' },
          // The SDK's own refusal (JSON-RPC error): Accept must list application/json and text/event-stream.
          406: ref(McpResponseSchema),
        },
      },
    },
    async (request, reply) => {
      // The body schema checks the fields; the SDK's own schema checks that they make a message (a
      // request, notification or response), so what it would refuse gets the error envelope here.
      if (!JSONRPCMessageSchema.safeParse(request.body).success) throw notAMessage();
      const server = buildMcpServer(compiled, {
        db,
        caller: callerOf(request),
        config,
        log: request.log,
        requestId: request.id,
      });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      // From here the SDK writes the response: carry over what the hooks set (request id, rate limits).
      reply.hijack();
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value);
      }
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (error) {
        request.log.error({ err: error }, 'MCP transport failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          reply.raw.end(
            JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } }),
          );
        }
      }
    },
  );

  // Stateless: no server-sent event stream to open (GET) and no session to end (DELETE).
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: MCP_PATH,
      config: { public: true },
      schema: {
        operationId: method === 'GET' ? 'mcp.stream' : 'mcp.session.delete',
        summary: method === 'GET' ? 'MCP: no event stream (405)' : 'MCP: no session to end (405)',
        description:
          'The MCP endpoint is stateless and answers over POST only: this method gets 405 with `Allow: POST`, ' +
          'which MCP clients take as "no stream / no session".',
        tags: TAGS,
        response: { 405: ref(ErrorResponseSchema) },
      },
      handler: async () => {
        throw Errors.methodNotAllowed(method, MCP_PATH, 'POST');
      },
    });
  }
};
