import { STATUS_CODES } from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ACTOR_KINDS, eventCatalog } from '../events/catalog.ts';
import { documentBatchItems } from './batch.ts';
import { describeParameters, describeResponses } from './openapi-descriptions.ts';
import { addExamples, type ExampleSet } from './openapi-examples.ts';
import { addHttpHeaders } from './openapi-headers.ts';
import { literalParenthesesInPaths } from './openapi-paths.ts';

const SIGNATURE_HEADERS = {
  'X-Service-Signature': {
    description:
      '`t=<unix seconds>,v1=<64 lowercase hex>`: HMAC-SHA256 of `<t>.<raw body>` keyed with the secret (one `v1` per ' +
      'active secret during a rotation). Verify with any Stripe-compatible verifier; reject timestamps older than 5 minutes.',
    required: true,
    schema: { type: 'string' },
  },
  'webhook-id': {
    description: 'Standard Webhooks message id: the event id, the same on every attempt (dedupe on it)',
    required: true,
    schema: { type: 'string' },
  },
  'webhook-timestamp': {
    description: 'Standard Webhooks timestamp (unix seconds)',
    required: true,
    schema: { type: 'string' },
  },
  'webhook-signature': {
    description: 'Standard Webhooks signatures: space-separated `v1,<base64>`',
    required: true,
    schema: { type: 'string' },
  },
};

/** What the document says of the API as a whole: src/api-document.ts (the platform names no feature). */
export interface ApiDocument {
  title: string;
  description: string;
  /** Every tag a route uses, with what it groups (the reference page's sections), in any order. */
  tags: readonly { name: string; description: string }[];
  /** The tag of GET /v1/openapi.json itself. */
  documentTag: string;
  /** The tag of each event type's entry under `webhooks`. */
  eventsTag: string;
  /** What examples are made of: the features' field examples, formats, error envelopes. */
  examples: ExampleSet;
}

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per catalog type, the delivery envelope with the
 * type's `data` schema and example (what `GET /v1/events` serves, in the description's own terms).
 */
function catalogWebhooks(tag: string): Record<string, unknown> {
  const webhooks: Record<string, unknown> = {};
  for (const definition of eventCatalog.list()) {
    const data = JSON.parse(JSON.stringify(definition.schema)) as Record<string, unknown>;
    webhooks[definition.type] = {
      post: {
        operationId: `webhook.${definition.type}`,
        summary: definition.type,
        description: definition.description,
        tags: [tag],
        security: [{ WebhookSignature: [] }],
        parameters: Object.entries(SIGNATURE_HEADERS).map(([name, header]) => ({
          name,
          in: 'header',
          ...header,
        })),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: [
                  'event',
                  'id',
                  'type',
                  'timestamp',
                  'organizationId',
                  'livemode',
                  'actor',
                  'data',
                  'sequence',
                ],
                properties: {
                  event: { type: 'string', const: definition.type },
                  id: { type: 'string', description: 'Event id: the same on every attempt; dedupe on it' },
                  type: { type: 'string', const: definition.type },
                  timestamp: { type: 'string', format: 'date-time' },
                  organizationId: { type: 'string' },
                  livemode: { type: 'boolean', description: 'false for events of the test organization' },
                  actor: {
                    type: 'object',
                    required: ['kind', 'userId'],
                    properties: {
                      kind: { type: 'string', enum: [...ACTOR_KINDS] },
                      userId: { type: ['string', 'null'] },
                    },
                  },
                  data,
                  sequence: {
                    type: 'integer',
                    minimum: 1,
                    description: "The event's place in the organization's event log (GET /v1/event-log)",
                  },
                },
              },
              example: {
                event: definition.type,
                id: 'evt_0VhJ3kQ2Zt8mX1pR4sT6uE',
                type: definition.type,
                timestamp: '2027-03-29T10:15:00.000Z',
                organizationId: 'org_0VhJ3kQ2Zt8mX1pR4sT6uO',
                livemode: true,
                actor: { kind: 'API', userId: null },
                data: definition.example,
                sequence: 1042,
              },
            },
          },
        },
        responses: {
          '200': { description: 'Any 2xx within 10 seconds: received (do the work afterwards)' },
          '410': { description: 'Gone: the subscription is disabled at once' },
          '429': { description: 'Retried later, like 5xx, network errors and timeouts' },
        },
      },
    };
  }
  return webhooks;
}

/** OpenAPI 3.1 generated from the route schemas, at /v1/openapi.json, and a reference page at /docs. */
export async function registerOpenApi(app: FastifyInstance, serverUrl: string, api: ApiDocument) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: api.title,
        version: '1.0.0',
        description: api.description,
        license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
      },
      servers: [{ url: serverUrl, description: 'This server' }],
      // Built as plain JSON Schema; @fastify/swagger's type for it is narrower than what 3.1 allows.
      webhooks: catalogWebhooks(api.eventsTag) as never,
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
          KeyBearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A secret or read-only secret API key as a bearer token, where X-API-Key is also taken (RESO Web API); ' +
              'POST /oauth/token hands out the same key as an OAuth 2.0 access token',
          },
          OAuthClient: {
            type: 'http',
            scheme: 'basic',
            description:
              "OAuth 2.0 client credentials (RFC 6749 §2.3.1) at POST /oauth/token: the key's id as client_id and " +
              'the secret or read-only secret key as client_secret, in HTTP Basic or in the form body',
          },
          WebhookSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Service-Signature',
            description:
              'How a receiver authenticates a delivery: the HMAC signature of the subscription secret',
          },
        },
      },
      // Declared in alphabetical order (Spectral's openapi-tags-alphabetical); every tag a route uses.
      tags: [...api.tags].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    },
    // What route schemas cannot say: literal parentheses in paths, batch items, headers, the
    // Idempotency-Key parameter, examples, descriptions.
    transformObject: (document) =>
      'openapiObject' in document
        ? describeParameters(
            describeResponses(
              addExamples(
                addHttpHeaders(
                  documentBatchItems(literalParenthesesInPaths(document.openapiObject, app.routeTable)),
                  app.routeTable,
                ),
                api.examples,
              ),
              STATUS_CODES as Record<string, string>,
            ),
          )
        : document.swaggerObject,
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
        description:
          'No key needed; CORS is open (`Access-Control-Allow-Origin: *`). The OpenAPI 3.1 document generated from ' +
          "this server's route declarations: every operation, the shared schemas under `components`, the response " +
          'headers, and each event type of the catalog under `webhooks`. /docs renders it as a reference page.',
        tags: [api.documentTag],
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
