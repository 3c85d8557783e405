import { FEATURES } from './features.ts';
import { MCP_TAG } from './mcp/mcp.routes.ts';
import type { FeatureManifest } from './platform/features/manifest.ts';
import type { ApiDocument } from './platform/http/openapi.ts';

const DESCRIPTION = `Multi-tenant API for real-estate agencies: public portal, leads, booking, CRM, conversations,
webhooks and a read-only MCP endpoint.

Authenticate every /v1 request with the \`X-API-Key\` header. Publishable keys (\`service_pk_…\`) may live in a
browser and reach the portal endpoints only; secret keys (\`service_sk_…\`) stay on servers. Every failure answers
\`{"error": {"code", "message", "requestId", "details?"}}\`. POST requests accept an \`Idempotency-Key\` header.`;

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
  };
}
