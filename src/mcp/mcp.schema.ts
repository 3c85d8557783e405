import { Type, type TSchema } from '@fastify/type-provider-typebox';

const JsonRpcId = Type.Union([Type.String(), Type.Integer()], { description: 'Echoed in the response' });

/**
 * One JSON-RPC 2.0 message from the client: a request (`id` + `method`), a notification (`method`
 * only) or a response to the server. The SDK checks the rest and answers JSON-RPC errors itself.
 */
export const McpMessageSchema = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(JsonRpcId),
    method: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'initialize, notifications/initialized, tools/list, tools/call, ping',
      }),
    ),
    params: Type.Optional(Type.Object({}, { additionalProperties: true })),
    result: Type.Optional(Type.Object({}, { additionalProperties: true })),
    error: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  {
    $id: 'McpMessage',
    additionalProperties: false,
    examples: [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    description: 'A JSON-RPC 2.0 message of the Model Context Protocol (Streamable HTTP transport)',
  },
);

export const McpResponseSchema = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([JsonRpcId, Type.Null()]),
    result: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'tools/list: `{tools}`; tools/call: `{content, structuredContent, isError?}`',
        },
      ),
    ),
    error: Type.Optional(
      Type.Object(
        { code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'McpResponse', additionalProperties: false, description: 'The JSON-RPC response (JSON, not SSE)' },
);

export const mcpSchemas: TSchema[] = [McpMessageSchema, McpResponseSchema];
