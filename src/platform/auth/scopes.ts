/** Every scope of SPEC.md "Authentication" rule 5. */
export const SCOPES = [
  'portal:read',
  'leads:write',
  'booking:write',
  'finder:write',
  'events:write',
  'contacts:read',
  'contacts:write',
  'messages:write',
  'webhooks:write',
  'events:read',
  'deals:read',
  'appointments:read',
  'tasks:read',
  'conversations:read',
  // Issue 21: the CRM writable through v1 (support-approved, access level 3, like contacts:write).
  'deals:write',
  'tasks:write',
  'appointments:write',
  'leads:read',
  // Issue 25: the agency's listings through v1 (listings:write support-approved, access level 3).
  'listings:read',
  'listings:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/** What a publishable key may ever hold (and gets by default). */
export const PUBLISHABLE_SCOPES: readonly Scope[] = [
  'portal:read',
  'leads:write',
  'booking:write',
  'finder:write',
  'events:write',
];

/** Scopes that need support approval: never granted by default. */
export const APPROVAL_SCOPES: readonly Scope[] = [
  'contacts:write',
  'webhooks:write',
  'deals:write',
  'tasks:write',
  'appointments:write',
  'listings:write',
];

export const DEFAULT_SECRET_SCOPES: readonly Scope[] = SCOPES.filter((s) => !APPROVAL_SCOPES.includes(s));

/** A read-only secret key can only read. */
export const READ_SCOPES: readonly Scope[] = SCOPES.filter((s) => s.endsWith(':read'));

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
