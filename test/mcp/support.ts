/**
 * MCP tests talk to a listening server (app.listen on port 0) with the SDK's own client, as an
 * agent would; raw `fetch` checks the HTTP statuses and headers the client hides.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/** Starts `app` on a free local port; returns the MCP endpoint's URL. */
export async function listen(app: FastifyInstance): Promise<URL> {
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return new URL('/mcp', address);
}

/** An initialized SDK client sending `key` as a bearer token. Close it when done. */
export async function connect(url: URL, key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: 'agency-crm-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Calls a tool and asserts it succeeded; returns its structured content. */
export async function callOk<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ result: CallToolResult; data: T }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError ?? false, `${name}: ${JSON.stringify(result.content)}`).toBe(false);
  expect(result.structuredContent, name).toBeDefined();
  return { result, data: result.structuredContent as T };
}

/** Calls a tool and asserts a tool error (not a protocol error); returns its text. */
export async function callError(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name} should fail: ${JSON.stringify(result)}`).toBe(true);
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw-fetch', version: '1.0.0' },
  },
};

/** A raw JSON-RPC POST (an initialize unless `body` says otherwise) with the given headers. */
export function post(url: URL, headers: Record<string, string>, body: unknown = INITIALIZE) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
