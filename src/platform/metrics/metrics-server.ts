import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metric } from 'prom-client';
import { sameSecret } from '../auth/auth.plugin.ts';
import { metricsRegistry } from './metrics.ts';

/**
 * GET /metrics of a process without the API (a worker, WORKER_METRICS_PORT): the same Prometheus text
 * and the same admin bearer token as the API's /metrics; anything else is a 404.
 */
export async function serveMetrics(options: {
  host: string;
  port: number;
  adminToken: string;
  metrics: readonly Metric[];
}): Promise<{ port: number; close(): Promise<void> }> {
  const registry = metricsRegistry(options.metrics);
  const server: Server = createServer((request, response) => {
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      send(404, 'text/plain', 'not found: this port serves GET /metrics only\n');
      return;
    }
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (token === undefined || !sameSecret(token, options.adminToken)) {
      send(401, 'text/plain', 'the admin token is required: Authorization: Bearer <ADMIN_TOKEN>\n');
      return;
    }
    registry.metrics().then(
      (text) => send(200, registry.contentType, text),
      (error: unknown) => send(500, 'text/plain', `metrics failed: ${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
