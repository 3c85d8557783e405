/**
 * The TypeScript client's tests talk to a listening server over real HTTP. Failures the service
 * does not produce on demand (a reset connection, a 503, a hang) come from a real local proxy in
 * front of it that forwards every request unless told to fail the next ones.
 */
import { execFile } from 'node:child_process';
import { cpSync } from 'node:fs';
import { createServer, request as forward, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { createClient, type ClientOptions } from '../../clients/typescript/src/index.ts';

/** The client package's folder (clients/typescript/). */
export const CLIENT_PACKAGE = fileURLToPath(new URL('../../clients/typescript/', import.meta.url));

/**
 * The package as `npm pack` would ship it, in `dir`: package.json, the examples, and dist/ built
 * by tsc from the package's own tsconfig (ESM with .d.ts, no node types, no dependencies).
 */
export async function buildClientPackage(dir: string): Promise<void> {
  cpSync(join(CLIENT_PACKAGE, 'package.json'), join(dir, 'package.json'));
  cpSync(join(CLIENT_PACKAGE, 'examples'), join(dir, 'examples'), { recursive: true });
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  await promisify(execFile)(
    process.execPath,
    [tsc, '-p', join(CLIENT_PACKAGE, 'tsconfig.json'), '--outDir', join(dir, 'dist')],
    { timeout: 120_000 },
  );
}

/** Starts `app` on a free local port; returns its base URL (no trailing slash). */
export async function listen(app: FastifyInstance): Promise<string> {
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return address.replace(/\/+$/, '');
}

/** A client of `baseUrl` with `apiKey`, small waits so the retry tests stay quick. */
export function clientFor(baseUrl: string, apiKey: string, options: Partial<ClientOptions> = {}) {
  return createClient({ apiKey, baseUrl, timeoutMs: 10_000, ...options });
}

/**
 * What the proxy does with one request: forward it (the default), answer by itself, drop the
 * connection before forwarding, forward it and then drop the connection instead of answering (the
 * server did the work, the client never hears), or never answer.
 */
export type Fault =
  | { status: number; headers?: Record<string, string>; body?: string }
  | 'reset-before'
  | 'reset-after'
  | 'hang';

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  at: number;
  /** The status the client got, or what happened instead. */
  outcome: number | 'reset' | 'hang';
}

export class FaultProxy {
  readonly requests: ProxiedRequest[] = [];
  private faults: Fault[] = [];
  private server!: Server;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly target: string) {}

  async start(): Promise<this> {
    const target = new URL(this.target);
    this.server = createServer((incoming, outgoing) => {
      const seen: ProxiedRequest = {
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        headers: incoming.headers,
        at: Date.now(),
        outcome: 'hang',
      };
      this.requests.push(seen);
      const fault = this.faults.shift();
      if (fault === 'hang') return;
      if (fault === 'reset-before') {
        seen.outcome = 'reset';
        incoming.socket.destroy();
        return;
      }
      if (typeof fault === 'object') {
        seen.outcome = fault.status;
        outgoing.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
        outgoing.end(fault.body ?? '');
        return;
      }
      const upstream = forward(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: target.host },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            if (fault === 'reset-after') {
              seen.outcome = 'reset';
              incoming.socket.destroy();
              return;
            }
            seen.outcome = answer.statusCode ?? 0;
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
            outgoing.end(Buffer.concat(chunks));
          });
        },
      );
      upstream.on('error', () => incoming.socket.destroy());
      incoming.pipe(upstream);
    });
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next requests meet these faults, one each, in order (later ones are forwarded); forgets the requests seen so far. */
  failNext(...faults: Fault[]): void {
    this.faults = faults;
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The API's error envelope, as a fault's body. */
export function envelope(code: string, message: string): string {
  return JSON.stringify({ error: { code, message, requestId: 'req_from_the_proxy' } });
}
