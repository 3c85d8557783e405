import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';

const DESCRIPTION = `Multi-tenant API for real-estate agencies: public portal, leads, booking, CRM, conversations,
webhooks and a read-only MCP endpoint.

Authenticate every /v1 request with the \`X-API-Key\` header. Publishable keys (\`service_pk_…\`) may live in a
browser and reach the portal endpoints only; secret keys (\`service_sk_…\`) stay on servers. Every failure answers
\`{"error": {"code", "message", "requestId", "details?"}}\`. POST requests accept an \`Idempotency-Key\` header.`;

/** OpenAPI 3.1 generated from the route schemas, at /v1/openapi.json, and a reference page at /docs. */
export async function registerOpenApi(app: FastifyInstance, serverUrl: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'agency-crm API',
        version: '1.0.0',
        description: DESCRIPTION,
        license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
      },
      servers: [{ url: serverUrl, description: 'This server' }],
      components: {
        securitySchemes: {
          ApiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'Publishable or secret API key',
          },
          AdminToken: { type: 'http', scheme: 'bearer', description: 'Operator token (ADMIN_TOKEN)' },
          McpBearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'A secret or read-only secret API key as a bearer token (the MCP endpoint only)',
          },
        },
      },
      tags: [
        { name: 'Introspection', description: 'Who am I: the calling key and its organization' },
        { name: 'Events', description: 'The event catalog' },
        { name: 'Admin', description: 'Operator back office (admin bearer token)' },
        { name: 'Operations', description: 'Health, readiness, metrics and this description' },
        {
          name: 'MCP',
          description: 'Read-only Model Context Protocol endpoint for AI agents (docs/mcp.md)',
        },
      ],
    },
    refResolver: {
      // Named shared schemas appear under their $id in components.schemas (not def-0).
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });

  app.get(
    '/v1/openapi.json',
    {
      config: { public: true },
      schema: {
        operationId: 'openapi.get',
        summary: 'This API description (OpenAPI 3.1)',
        tags: ['Operations'],
        response: {
          200: Type.Object({}, { additionalProperties: true, description: 'OpenAPI 3.1 document' }),
        },
      },
    },
    async (_request, reply) => {
      reply.header('access-control-allow-origin', '*');
      return app.swagger();
    },
  );

  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
}
