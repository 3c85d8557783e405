import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * What the receiver does with one request: answer a status (and body), after `delayMs` if given,
 * hang, or drop the connection.
 */
export type Behaviour =
  { status: number; body?: string; headers?: Record<string, string>; delayMs?: number } | 'hang' | 'reset';

/**
 * A real local webhook receiver (node:http on 127.0.0.1, random port). Each path answers by its
 * script, one behaviour per request in order (the last one repeats), default 200.
 */
export class Receiver {
  readonly received: Received[] = [];
  private readonly scripts = new Map<string, Behaviour[]>();
  private readonly hanging = new Set<() => void>();
  private server!: Server;
  private waiters: { count: number; path?: string; resolve: () => void }[] = [];

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        this.received.push({
          path,
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        this.notify();
        const script = this.scripts.get(path) ?? [];
        const behaviour = (script.length > 1 ? script.shift() : script[0]) ?? { status: 200 };
        if (behaviour === 'hang') {
          const release = () => response.destroy();
          this.hanging.add(release);
          return;
        }
        if (behaviour === 'reset') {
          request.socket.destroy();
          return;
        }
        const answer = () => {
          response.writeHead(behaviour.status, {
            'content-type': 'text/plain',
            ...(behaviour.headers ?? {}),
          });
          response.end(behaviour.body ?? 'ok');
        };
        if (behaviour.delayMs) setTimeout(answer, behaviour.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  script(path: string, ...behaviours: Behaviour[]): void {
    this.scripts.set(path, behaviours);
  }

  at(path: string): Received[] {
    return this.received.filter((request) => request.path === path);
  }

  /** Resolves once `count` requests reached `path` (or any path). */
  waitFor(count: number, path?: string, timeoutMs = 15_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`receiver: ${this.count(path)} of ${count} requests on ${path ?? 'any path'}`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        path,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
      this.notify();
    });
  }

  private count(path?: string): number {
    return path === undefined ? this.received.length : this.at(path).length;
  }

  private notify(): void {
    this.waiters = this.waiters.filter((waiter) => {
      if (this.count(waiter.path) < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  }

  async close(): Promise<void> {
    this.hanging.forEach((release) => release());
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
