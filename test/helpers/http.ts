import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { ADMIN_TOKEN } from './test-app.ts';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT' | 'OPTIONS';

export interface CallOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | string[]>;
  /** Client address (the IP block is per address). */
  remoteAddress?: string;
}

/** A v1 call with an API key in X-API-Key. */
export function api(app: FastifyInstance, method: Method, url: string, options: CallOptions = {}) {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key !== undefined) headers['x-api-key'] = options.key;
  const request: InjectOptions = { method, url, headers, query: options.query };
  if (options.remoteAddress !== undefined) request.remoteAddress = options.remoteAddress;
  if (options.body !== undefined) request.payload = options.body as InjectOptions['payload'];
  return app.inject(request);
}

/** HTTP Basic credentials (RFC 7617), as an OAuth 2.0 client sends its client_id and client_secret. */
export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** An admin API call with the test admin token. */
export function admin(
  app: FastifyInstance,
  method: Method,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const request: InjectOptions = {
    method,
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...headers },
  };
  if (body !== undefined) request.payload = body as InjectOptions['payload'];
  return app.inject(request);
}

/** Asserts the status, with the body in the failure message so CI output explains itself. */
export function expectStatus(response: LightMyRequestResponse, status: number) {
  expect(response.statusCode, `${response.statusCode} ${response.body}`).toBe(status);
  return response.json();
}

/** Asserts the error envelope: status, code, a request id, and returns the error. */
export function expectError(response: LightMyRequestResponse, status: number, code: string) {
  const body = expectStatus(response, status);
  expect(body.error?.code, response.body).toBe(code);
  expect(typeof body.error.message, response.body).toBe('string');
  expect(body.error.requestId, response.body).toBe(response.headers['x-request-id']);
  return body.error as {
    code: string;
    message: string;
    requestId: string;
    details?: { field: string; message: string }[];
  };
}
