import { FEATURES } from './features.ts';
import { MCP_TAG } from './mcp/mcp.routes.ts';
import type { FeatureManifest } from './platform/features/manifest.ts';
import type { ApiDocument } from './platform/http/openapi.ts';
import { mergeFieldExamples, type ExampleSet } from './platform/http/openapi-examples.ts';

const DESCRIPTION = `Multi-tenant API for real-estate agencies: public portal, leads, booking, CRM, conversations,
webhooks and a read-only MCP endpoint.

Authenticate every /v1 request with the \`X-API-Key\` header. Publishable keys (\`service_pk_…\`) may live in a
browser and reach the portal endpoints only; secret keys (\`service_sk_…\`) stay on servers. Every failure answers
\`{"error": {"code", "message", "requestId", "details?"}}\`. POST requests accept an \`Idempotency-Key\` header.`;

const EXAMPLE_ID = 'ct_0VhJ3kQ2Zt8mX1pR4sT6uE';

/** Formats the sampler would fill with its own year-2019 or example.com values. */
const FORMATS: ExampleSet['formats'] = {
  'date-time': '2027-03-29T10:15:00.000Z',
  date: '2027-03-29',
  email: 'lucia.garcia@example.com',
};

/** The error envelope shown for each status. */
const ERRORS: ExampleSet['errors'] = {
  '400': {
    code: 'VALIDATION_ERROR',
    message: 'body.phone is not a valid phone number',
    details: [{ field: 'body.phone', message: 'is not a valid phone number' }],
  },
  '401': { code: 'UNAUTHORIZED', message: 'Missing API key: send it in the X-API-Key header' },
  '402': {
    code: 'PAYMENT_REQUIRED',
    message: 'This organization is read-only until its billing is resolved',
  },
  '403': { code: 'FORBIDDEN', message: 'This API key lacks the scope contacts:read' },
  '404': { code: 'NOT_FOUND', message: `Contact ${EXAMPLE_ID} not found` },
  '405': { code: 'METHOD_NOT_ALLOWED', message: 'GET /mcp is not supported; use POST' },
  '409': { code: 'DUPLICATE', message: 'A contact with this phone already exists' },
  '413': { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is larger than the 1 MiB limit' },
  '415': { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json' },
  '429': { code: 'RATE_LIMITED', message: 'Rate limit of 60 requests per minute exceeded for this API key' },
  '500': { code: 'INTERNAL_ERROR', message: 'Internal server error' },
  '502': { code: 'MESSAGING_ERROR', message: 'The messaging platform did not accept the message' },
  '503': { code: 'SERVICE_UNAVAILABLE', message: 'The database is temporarily unavailable; retry shortly' },
};

/**
 * What `/v1/openapi.json` says of the API as a whole: its title and introduction, and the tags the
 * features declare in their manifests (with the MCP endpoint's).
 */
export function apiDocument(features: readonly FeatureManifest[] = FEATURES): ApiDocument {
  return {
    title: 'agency-crm API',
    description: DESCRIPTION,
    tags: [...features.flatMap((feature) => feature.tags ?? []), MCP_TAG],
    documentTag: 'Operations',
    eventsTag: 'Webhooks',
    examples: {
      ...mergeFieldExamples(features.flatMap((feature) => (feature.examples ? [feature.examples] : []))),
      formats: FORMATS,
      errors: ERRORS,
    },
  };
}
