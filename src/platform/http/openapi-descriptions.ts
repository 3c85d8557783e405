/**
 * Descriptions the route declarations leave to conventions: what each answer is (a success by its
 * schema, a failure by its status) and what each path or query parameter names.
 */

type Media = { schema?: unknown };

/** What each failure status means, for answers that only carry the shared envelope's description. */
export const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400': 'Invalid input: `details` names each field that failed',
  '401': 'No valid credential (`WWW-Authenticate` names the one wanted)',
  '402': 'The organization is read-only until its billing is resolved: writes are refused',
  '403': 'The key may not do this: key type, scope, access level, or a secret key used from a browser',
  '404': 'No such resource in this organization (another organization’s id reads the same)',
  '405': 'Not a method this path serves (`Allow` lists them)',
  '409':
    'A clash with the current state: a duplicate, a conflict the message names, or an Idempotency-Key reused with another body or still in progress after a 5-second wait',
  '413': 'The body is larger than 1 MiB',
  '415': 'The body is not `application/json`',
  '429': 'Rate limited: retry after `Retry-After` seconds (`RateLimit` names the policy)',
  '500': 'An unexpected failure; `requestId` finds it in the logs',
  '502': 'The messaging platform failed',
  '503': 'Temporarily unavailable: retry after `Retry-After` seconds',
};

/** The component a response schema names: itself, or the `data` it wraps. */
function describedBy(schema: unknown, document: { components?: { schemas?: Record<string, unknown> } }) {
  const node = schema as { $ref?: string; description?: string; properties?: { data?: unknown } };
  if (typeof node?.description === 'string') return node.description;
  const inner = (node?.$ref ? node : (node?.properties?.data as typeof node)) ?? undefined;
  const target = inner?.$ref ?? (inner as { items?: { $ref?: string } })?.items?.$ref;
  const name = target?.split('/').at(-1);
  const component = name ? (document.components?.schemas?.[name] as { description?: string }) : undefined;
  return component?.description;
}

/**
 * Replaces the descriptions @fastify/swagger leaves ("Default Response") and the shared envelope's
 * ("Every failure, on every route") with what the answer is: the described schema of a success, the
 * meaning of a failure status.
 */
export function describeResponses<T extends object>(document: T, reasons: Record<string, string>): T {
  const doc = document as T & {
    paths?: Record<
      string,
      Record<
        string,
        { responses?: Record<string, { description?: string; content?: Record<string, Media> }> }
      >
    >;
    components?: { schemas?: Record<string, unknown> };
  };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (response.description === 'Every failure, on every route' && ERROR_DESCRIPTIONS[status]) {
          response.description = ERROR_DESCRIPTIONS[status];
        } else if (response.description === 'Default Response') {
          const schema = response.content?.['application/json']?.schema;
          response.description =
            ERROR_DESCRIPTIONS[status] ?? describedBy(schema, doc) ?? reasons[status] ?? `HTTP ${status}`;
        }
      }
    }
  }
  return document;
}

/** Path parameters by name: what they name. */
const PATH_PARAMETERS: Record<string, string> = {
  orgId: "The organization's id; its test twin's id acts on the twin",
  id: "The resource's id",
  keyId: 'The API key',
  contactId: 'The contact',
  agentId: 'The agent',
  propertyId: 'The property',
  dealId: 'The deal',
  pipelineId: 'The pipeline',
  taskId: 'The task',
  appointmentId: 'The appointment',
  numberId: 'The messaging number',
  templateId: 'The message template',
  deliveryId: 'The webhook delivery',
  slug: "The agent's booking slug",
};

/** Query parameters by name, where their schema says nothing. */
const QUERY_PARAMETERS: Record<string, string> = {
  status: 'Only items in this status',
  type: 'Only items of this type',
  contactId: 'Only items of this contact',
  agentId: 'Only items of this agent',
  assigneeId: 'Only tasks assigned to this agent',
  pipelineId: 'Only deals of this pipeline',
  stageId: 'Only deals in this stage',
  source: 'Only contacts from this source',
  leadSource: 'Only deals from this lead source',
  optedOut: '`true`: only contacts who opted out of messages; `false`: only those who did not',
  externalId: 'Only the item with this external id (your own system’s)',
  intent: 'Only items with this intent',
  plan: 'Only organizations on this plan',
  isActive: '`true`: only active organizations; `false`: only deactivated ones',
  active: '`true`: only active items; `false`: only inactive ones',
  mode: 'Only keys of this mode (`live` or `test`)',
  priceMin: 'Lowest price, inclusive',
  priceMax: 'Highest price, inclusive (not below `priceMin`)',
  bedroomsMin: 'At least this many bedrooms',
  bathroomsMin: 'At least this many bathrooms',
  areaMin: 'Smallest built area in m², inclusive',
  areaMax: 'Largest built area in m², inclusive (not below `areaMin`)',
  featured: '`true`: only featured listings',
  publishedOnPortal: '`true`: only listings published on the portal; `false`: only unpublished ones',
  code: 'Only the property with this code',
  q: 'Search text, matched without accents or case against the names and codes',
};

type Parameter = { in?: string; name?: string; description?: string };

/** Gives every path and query parameter without a description one, from its name. */
export function describeParameters<T extends object>(document: T): T {
  const doc = document as T & { paths?: Record<string, Record<string, { parameters?: Parameter[] }>> };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.description || !parameter.name) continue;
        const table: Record<string, string> =
          parameter.in === 'path' ? PATH_PARAMETERS : parameter.in === 'query' ? QUERY_PARAMETERS : {};
        const description = table[parameter.name];
        if (description) parameter.description = description;
      }
    }
  }
  return document;
}
