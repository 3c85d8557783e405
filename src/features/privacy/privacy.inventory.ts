// Where personal data about a contact lives, and what erasure and export do with each place
// (issue 21). docs/privacy.md is written from this list; test/features/privacy/inventory.test.ts
// fails when a table or a text column of the schema is missing from it.

/** What erasing a contact does to a table's rows about them. */
export type OnErase =
  /** The rows go with the contact (ON DELETE CASCADE). */
  | 'DELETED'
  /** The rows stay without the contact (link set to null) and their free text is redacted. */
  | 'UNLINKED_AND_REDACTED'
  /** Copies of the person's data inside the rows (JSON payloads, stored responses) are redacted. */
  | 'COPIES_REDACTED'
  /** The table holds no data about contacts. */
  | 'NONE';

export interface DataPlace {
  table: string;
  /** The column that links a row to the contact it is about, when there is one. */
  link: 'id' | 'contact_id' | 'deal_id' | null;
  /** Text columns that can hold personal data of a contact. */
  personal: readonly string[];
  /** The other text columns, looked at and holding none (codes, statuses, other people's data). */
  other: readonly string[];
  onErase: OnErase;
  /** In one sentence, for docs/privacy.md. */
  note: string;
}

export const PERSONAL_DATA_PLACES: readonly DataPlace[] = [
  {
    table: 'contacts',
    link: 'id',
    personal: [
      'first_name',
      'last_name',
      'email',
      'email_key',
      'phone',
      'preferred_city',
      'tags',
      'external_id',
      'search_text',
    ],
    other: ['code', 'source', 'status', 'type', 'preferred_type', 'currency'],
    onErase: 'DELETED',
    note: 'The person: names, email, phone, preferences, tags, the external id of the integrator.',
  },
  {
    table: 'contact_notes',
    link: 'contact_id',
    personal: ['body'],
    other: [],
    onErase: 'DELETED',
    note: 'Notes written about the person.',
  },
  {
    table: 'contact_consents',
    link: 'contact_id',
    personal: ['source'],
    other: ['channel', 'status', 'actor_kind'],
    onErase: 'DELETED',
    note: 'Consent history per channel.',
  },
  {
    table: 'leads',
    link: 'contact_id',
    personal: ['message', 'interested_in', 'utm', 'referrer'],
    other: ['outcome', 'matched_on'],
    onErase: 'DELETED',
    note: 'Portal forms: message, interest, campaign parameters, the page they came from.',
  },
  {
    table: 'visit_requests',
    link: 'contact_id',
    personal: ['preferred_time', 'message', 'decline_reason'],
    other: ['status'],
    onErase: 'DELETED',
    note: 'Visit requests with their message and preferred time.',
  },
  {
    table: 'finder_searches',
    link: 'contact_id',
    personal: ['criteria', 'property_ids'],
    other: [],
    onErase: 'DELETED',
    note: 'What the person searched for in the guided finder and what they were shown.',
  },
  {
    table: 'conversations',
    link: 'contact_id',
    personal: [],
    other: ['mode'],
    onErase: 'DELETED',
    note: 'The messaging conversation with the person.',
  },
  {
    table: 'messages',
    link: 'contact_id',
    personal: ['body', 'rendered_body', 'variables', 'failure_reason'],
    other: ['direction', 'type', 'status', 'usage'],
    onErase: 'DELETED',
    note: 'Messages in and out, with template variables.',
  },
  {
    table: 'usage_events',
    link: 'contact_id',
    personal: ['name', 'label', 'props', 'company_id', 'actor_label'],
    other: [],
    onErase: 'DELETED',
    note: 'Product usage detail (kept USAGE_DETAIL_RETENTION_DAYS).',
  },
  {
    table: 'usage_daily',
    link: 'contact_id',
    personal: ['name'],
    other: [],
    onErase: 'DELETED',
    note: 'Daily usage totals per event name.',
  },
  {
    table: 'deals',
    link: 'contact_id',
    personal: ['title', 'lost_reason'],
    other: ['code', 'currency', 'status', 'intent', 'lead_source', 'saas_plan_name', 'saas_billing_period'],
    onErase: 'UNLINKED_AND_REDACTED',
    note: "The agency's business stays: the deal loses its contact, the person's name, email and phone are redacted from its title and lost reason.",
  },
  {
    table: 'deal_stage_changes',
    link: 'deal_id',
    personal: ['lost_reason'],
    other: ['from_stage_name', 'to_stage_name', 'status', 'actor_kind'],
    onErase: 'UNLINKED_AND_REDACTED',
    note: "The deals' stage history stays; lost reasons are redacted like the deal's.",
  },
  {
    table: 'appointments',
    link: 'contact_id',
    personal: ['notes'],
    other: ['type', 'status', 'source'],
    onErase: 'UNLINKED_AND_REDACTED',
    note: "The agent's calendar stays: the appointment loses its contact, its notes are redacted.",
  },
  {
    table: 'tasks',
    link: 'contact_id',
    personal: ['title', 'description'],
    other: ['type', 'status'],
    onErase: 'UNLINKED_AND_REDACTED',
    note: 'Tasks stay without the contact, title and description redacted.',
  },
  {
    table: 'events',
    link: null,
    personal: ['data'],
    other: ['type', 'actor'],
    onErase: 'COPIES_REDACTED',
    note: 'The event log (EVENT_LOG_RETENTION_DAYS) and what pending webhook deliveries will send: every event that names the contact, its email or phone is rewritten without their data.',
  },
  {
    table: 'webhook_attempts',
    link: null,
    personal: ['response_body', 'response_headers', 'error'],
    other: ['request_headers'],
    onErase: 'COPIES_REDACTED',
    note: "Receivers' answers to deliveries of those events are dropped.",
  },
  {
    table: 'idempotency_keys',
    link: null,
    personal: ['response_body'],
    other: ['key', 'fingerprint', 'status'],
    onErase: 'COPIES_REDACTED',
    note: 'Stored responses of the last 24 hours (sealed with SECRETS_KEY) are opened and rewritten without the person.',
  },
  // Tables without data about contacts (agents are the agency's staff, not data subjects here).
  {
    table: 'agents',
    link: null,
    personal: [],
    other: ['first_name', 'last_name', 'email', 'phone', 'photo_url', 'bio', 'booking_slug', 'booking'],
    onErase: 'NONE',
    note: "The agency's staff.",
  },
  { table: 'analytics_daily', link: null, personal: [], other: ['type'], onErase: 'NONE', note: 'Counts.' },
  {
    table: 'analytics_events',
    link: null,
    personal: [],
    other: ['type', 'referrer'],
    onErase: 'NONE',
    note: 'Anonymous portal page views: no contact, no IP address.',
  },
  {
    table: 'api_keys',
    link: null,
    personal: [],
    other: ['type', 'mode', 'key_hash', 'key_prefix', 'name', 'scopes', 'status'],
    onErase: 'NONE',
    note: 'Keys.',
  },
  {
    table: 'console_links',
    link: null,
    personal: [],
    other: ['token_hash'],
    onErase: 'NONE',
    note: 'One-time console links (hashes).',
  },
  {
    table: 'console_sessions',
    link: null,
    personal: [],
    other: ['token_hash'],
    onErase: 'NONE',
    note: 'Console sessions (hashes).',
  },
  {
    table: 'request_logs',
    link: null,
    personal: [],
    other: [
      'request_id',
      'key_prefix',
      'method',
      'path',
      'operation_id',
      'mcp_tool',
      'error_code',
      'error_message',
      'ip',
    ],
    onErase: 'NONE',
    note: "Request metadata of the API's callers (no bodies; paths carry ids only), kept REQUEST_LOG_RETENTION_DAYS.",
  },
  { table: 'event_sequences', link: null, personal: [], other: [], onErase: 'NONE', note: 'Counters.' },
  {
    table: 'message_templates',
    link: null,
    personal: [],
    other: ['name', 'language', 'category', 'body', 'variables', 'status'],
    onErase: 'NONE',
    note: 'Templates, with placeholders only.',
  },
  {
    table: 'messaging_numbers',
    link: null,
    personal: [],
    other: ['phone'],
    onErase: 'NONE',
    note: "The agency's own numbers.",
  },
  {
    table: 'organization_counters',
    link: null,
    personal: [],
    other: ['name'],
    onErase: 'NONE',
    note: 'Counters.',
  },
  {
    table: 'organizations',
    link: null,
    personal: [],
    other: ['name', 'plan', 'default_country', 'default_currency'],
    onErase: 'NONE',
    note: 'The agencies.',
  },
  {
    table: 'pipeline_stages',
    link: null,
    personal: [],
    other: ['name', 'kind'],
    onErase: 'NONE',
    note: 'Settings.',
  },
  { table: 'pipelines', link: null, personal: [], other: ['name'], onErase: 'NONE', note: 'Settings.' },
  {
    table: 'portal_settings',
    link: null,
    personal: [],
    other: ['agency_name', 'logo_url', 'colors', 'contact', 'social_links'],
    onErase: 'NONE',
    note: "The agency's own portal details.",
  },
  {
    table: 'properties',
    link: null,
    personal: [],
    other: [
      'code',
      'title',
      'description',
      'transaction_type',
      'type',
      'status',
      'currency',
      'city',
      'neighborhood',
      'address',
      'zip_code',
      'amenities',
      'photos',
      'internal_notes',
      'custom_fields',
      'search_city',
      'search_neighborhood',
      'search_text',
    ],
    onErase: 'NONE',
    note: 'Listings (an owner is not a contact of the CRM yet).',
  },
  {
    table: 'property_changes',
    link: null,
    personal: [],
    other: ['kind', 'previous_status', 'status', 'currency', 'actor_kind', 'actor_user_id'],
    onErase: 'NONE',
    note: "A listing's price and status history: no person in it (the actor is an agent's id).",
  },
  {
    table: 'webhook_deliveries',
    link: null,
    personal: [],
    other: ['event_type', 'status', 'last_error'],
    onErase: 'NONE',
    note: 'Delivery state; the payload is the event, redacted above.',
  },
  {
    table: 'webhook_subscriptions',
    link: null,
    personal: [],
    other: ['url', 'event_types', 'description', 'secret', 'previous_secret', 'disabled_reason'],
    onErase: 'NONE',
    note: 'Endpoints.',
  },
];
