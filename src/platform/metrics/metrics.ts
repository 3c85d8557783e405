import type { FastifyInstance } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics at GET /metrics (admin token): request counts and latency by operationId,
 * method and status, plus the Node process defaults. One registry per app instance.
 */
export function registerMetrics(app: FastifyInstance) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['operation_id', 'method', 'status'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by operationId, method and status',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by operationId, method and status',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  app.addHook('onResponse', async (request, reply) => {
    const operationId =
      (request.routeOptions.schema?.operationId as string | undefined) ??
      (request.routeOptions.url === undefined ? 'not_found' : 'other');
    const labels = { operation_id: operationId, method: request.method, status: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });

  app.get(
    '/metrics',
    {
      config: { admin: true },
      schema: {
        operationId: 'ops.metrics',
        summary: 'Prometheus metrics',
        tags: ['Operations'],
        produces: ['text/plain'],
        response: { 200: Type.String({ description: 'Prometheus text exposition format' }) },
      },
    },
    async (_request, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    },
  );
}
