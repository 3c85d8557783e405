import { sample } from 'openapi-sampler';

/**
 * Examples for the generated document, so every operation shows a request, its success and its
 * failures in the terms of the demo agency rather than `"string"`:
 * 1. string fields without an example get one by name (ids by their resource's prefix), when it fits
 *    the field's own pattern and lengths;
 * 2. every JSON request body and success answer gets an example sampled from its schema
 *    (openapi-sampler, Redocly's, which uses those field examples);
 * 3. every error answer gets the envelope of its status.
 * (Descriptions: openapi-descriptions.ts.)
 */

const ID_SUFFIX = '0VhJ3kQ2Zt8mX1pR4sT6uE';
const id = (prefix: string) => `${prefix}_${ID_SUFFIX}`;

/** Id fields by name: the prefix of the resource they point to. */
const ID_FIELDS: Record<string, string> = {
  organizationId: 'org',
  testOrganizationId: 'org',
  liveOrganizationId: 'org',
  apiKeyId: 'key',
  contactId: 'ct',
  agentId: 'agt',
  ownerId: 'agt',
  assigneeId: 'agt',
  userId: 'agt',
  propertyId: 'prop',
  appointmentId: 'apt',
  pipelineId: 'pl',
  stageId: 'stg',
  dealId: 'deal',
  taskId: 'task',
  templateId: 'tpl',
  visitRequestId: 'vr',
  searchId: 'fnd',
  subscriptionId: 'wh',
  eventId: 'evt',
  requestId: 'req',
  conversationId: 'conv',
  messageId: 'msg',
};

/** The `id` of a named schema whose description does not say its prefix. */
const ID_OF_SCHEMA: Record<string, string> = {
  AdminOrganization: 'org',
  AdminApiKey: 'key',
  CreatedApiKey: 'key',
  AdminAgent: 'agt',
  PortalAgent: 'agt',
  PropertyAgent: 'agt',
  BookingAgent: 'agt',
  MessageAgent: 'agt',
  EventEnvelope: 'evt',
};

const FAKE_KEY = 'EXAMPLEonlyNotAKeyEXAMPLEonly000abc123';

/** String fields by name (`Schema.field` first, then `field`). */
const TEXT_FIELDS: Record<string, string> = {
  'AdminOrganization.name': 'Demo Realty',
  'Pipeline.name': 'Sales',
  'PipelineStage.name': 'Visit done',
  'MessageTemplate.name': 'visit_followup',
  'AdminProperty.code': 'MAL-0042',
  'PortalProperty.code': 'MAL-0042',
  'Deal.code': 'DL-000042',
  'Contact.code': 'CT-000042',
  name: 'Demo Realty',
  agencyName: 'Demo Realty',
  code: 'CT-000042',
  phone: '+34600111222',
  messagingPhone: '+34600111222',
  firstName: 'Lucía',
  lastName: 'García',
  fullName: 'Lucía García',
  description: 'Bright three-bedroom flat with a sea view, two minutes from the beach.',
  title: 'Sea view flat in Málaga',
  currency: 'EUR',
  defaultCurrency: 'EUR',
  defaultCountry: 'ES',
  city: 'Málaga',
  preferredCity: 'Málaga',
  neighborhood: 'El Limonar',
  address: 'Calle Larios 5',
  zipCode: '29015',
  startTime: '09:00',
  endTime: '18:00',
  timezone: 'Europe/Madrid',
  body: 'Hola Lucía, ¿le viene bien la visita del jueves a las 11:00?',
  renderedBody: 'Hola Lucía, ¿le viene bien la visita del jueves a las 11:00?',
  photoUrl: 'https://cdn.example.com/agents/lucia.jpg',
  logoUrl: 'https://cdn.example.com/demo-realty/logo.svg',
  url: 'https://hooks.example.com/agency-crm',
  externalId: 'crm-7781',
  bio: 'Ten years selling homes on the Costa del Sol.',
  bookingSlug: 'lucia-garcia',
  slug: 'lucia-garcia',
  notes: 'Prefers afternoon visits.',
  internalNotes: 'The owner is open to offers.',
  lostReason: 'Bought elsewhere',
  tags: 'vip',
  saasPlanId: 'plan_pro',
  saasPlanName: 'Professional',
  providerNumberId: '106540352242922',
  language: 'es',
  defaultLanguage: 'es',
  keyPrefix: 'service_sk_live_AbC1',
  key: `service_sk_live_${FAKE_KEY}`,
  secretKey: `service_sk_live_${FAKE_KEY}`,
  publishableKey: `service_pk_live_${FAKE_KEY}`,
  secret: `whsec_${FAKE_KEY}`,
  expectedCloseDate: '2027-04-30',
  trialStartedAt: '2027-03-01',
  trialEndsAt: '2027-03-31',
  date: '2027-03-29',
  slots: '11:00',
  stageName: 'Visit done',
  caption: 'Living room',
  openingHours: 'Mon-Fri 9:00-19:00',
  utmSource: 'google',
  utmMedium: 'cpc',
  utmCampaign: 'spring-sale',
  utmContent: 'banner-a',
  referrer: 'https://www.google.com/',
  actorLabel: 'API key service_sk_live_AbC1',
  eventType: 'deal.won',
  eventTypes: 'deal.won',
  error: 'connect ECONNREFUSED 203.0.113.7:443',
  lastError: 'HTTP 500 from the receiver',
  responseBody: '{"ok":true}',
  chatMessageId: 'wamid.HBgLMzQ2MDAxMTEyMjIVAgARGBI',
  failureReason: 'The recipient is not on the messaging platform',
  method: 'GET',
  field: 'body.phone',
  reason: 'TEMPLATE_ONLY',
  variables: 'Lucía',
  primary: '#0B5FFF',
  secondary: '#14213D',
  accent: '#FCA311',
  background: '#FFFFFF',
  text: '#111111',
};

type Node = Record<string, unknown>;

function fits(node: Node, value: string): boolean {
  if (typeof node.minLength === 'number' && value.length < node.minLength) return false;
  if (typeof node.maxLength === 'number' && value.length > node.maxLength) return false;
  if (typeof node.pattern === 'string' && !new RegExp(node.pattern, 'u').test(value)) return false;
  return true;
}

function exampleFor(schemaName: string | undefined, field: string, node: Node): string | undefined {
  if (field === 'id' && schemaName !== undefined) {
    const described = /^(\w+)_… identifier/.exec(String(node.description ?? ''))?.[1];
    const prefix = described ?? ID_OF_SCHEMA[schemaName];
    return prefix === undefined ? undefined : id(prefix);
  }
  if (ID_FIELDS[field] !== undefined) return id(ID_FIELDS[field]);
  return TEXT_FIELDS[`${schemaName}.${field}`] ?? TEXT_FIELDS[field];
}

function isPlainString(node: Node): boolean {
  const type = node.type;
  return (
    (type === 'string' || (Array.isArray(type) && type.includes('string'))) &&
    node.enum === undefined &&
    node.const === undefined &&
    node.format === undefined &&
    node.example === undefined &&
    node.examples === undefined
  );
}

/** Formats the sampler would fill with its own year-2019 or example.com values. */
const FORMATS: Record<string, string> = {
  'date-time': '2027-03-29T10:15:00.000Z',
  date: '2027-03-29',
  email: 'lucia.garcia@example.com',
};

/** Adds `examples` to the string fields of `node` (recursively) named in the tables above. */
function annotate(node: unknown, schemaName: string | undefined, field: string | undefined): void {
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Node;
  if (field !== undefined && isPlainString(schema)) {
    const value = exampleFor(schemaName, field, schema);
    if (value !== undefined && fits(schema, value)) schema.examples = [value];
  }
  const formatted = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  if (formatted !== undefined && schema.examples === undefined && schema.example === undefined) {
    schema.examples = [formatted];
  }
  for (const [name, child] of Object.entries((schema.properties as Record<string, unknown>) ?? {})) {
    annotate(child, schemaName, name);
  }
  for (const key of ['items', 'additionalProperties'] as const) annotate(schema[key], schemaName, field);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const branch of (schema[key] as unknown[]) ?? []) annotate(branch, schemaName, field);
  }
}

const ERROR_EXAMPLES: Record<string, { code: string; message: string; details?: unknown[] }> = {
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
  '403': { code: 'FORBIDDEN', message: 'This API key lacks the scope this operation needs' },
  '404': { code: 'NOT_FOUND', message: `Contact ${id('ct')} not found` },
  '405': { code: 'METHOD_NOT_ALLOWED', message: 'GET /mcp is not supported; use POST' },
  '409': { code: 'DUPLICATE', message: 'A contact with this phone already exists' },
  '413': { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is larger than the 1 MiB limit' },
  '415': { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json' },
  '429': { code: 'RATE_LIMITED', message: 'Rate limit of 60 requests per minute exceeded for this API key' },
  '500': { code: 'INTERNAL_ERROR', message: 'Internal server error' },
  '502': { code: 'MESSAGING_ERROR', message: 'The messaging platform did not accept the message' },
  '503': { code: 'SERVICE_UNAVAILABLE', message: 'The database is temporarily unavailable; retry shortly' },
};

type Media = { schema?: unknown; example?: unknown; examples?: unknown };
type Operation = {
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
};

/** The schema's own first example (or its named component's), else one sampled from it. */
function sampled(schema: unknown, document: { components?: { schemas?: Record<string, unknown> } }): unknown {
  const ref = (schema as { $ref?: string }).$ref;
  const target = (ref ? document.components?.schemas?.[ref.split('/').at(-1) ?? ''] : schema) as
    { examples?: unknown[] } | undefined;
  if (Array.isArray(target?.examples) && target.examples.length > 0) return target.examples[0];
  return sample(schema as never, { skipReadOnly: true, quiet: true }, document as never);
}

/** Adds the examples (see the top of this file) to a generated OpenAPI 3.1 document, in place. */
export function addExamples<T extends object>(document: T): T {
  const doc = document as T & {
    paths?: Record<string, Record<string, Operation>>;
    components?: { schemas?: Record<string, unknown> };
  };
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {}))
    annotate(schema, name, undefined);
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const request = operation.requestBody?.content?.['application/json'];
      if (request?.schema !== undefined && request.example === undefined && request.examples === undefined) {
        annotate(request.schema, undefined, undefined);
        request.example = sampled(request.schema, doc);
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const media = response.content?.['application/json'];
        if (!media?.schema || media.example !== undefined || media.examples !== undefined) continue;
        const error = ERROR_EXAMPLES[status];
        const envelope = (media.schema as { $ref?: string }).$ref?.endsWith('/ErrorResponse');
        media.example =
          envelope && error ? { error: { ...error, requestId: id('req') } } : sampled(media.schema, doc);
      }
    }
  }
  return document;
}
