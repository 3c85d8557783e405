import type { Actor } from '../events/catalog.ts';
import type { KeyLimits } from '../rate-limit/rate-limits.ts';
import type { KeyMode, KeyType } from './keys.ts';
import type { Plan } from './plans.ts';
import type { Scope } from './scopes.ts';

/**
 * What a request presented (docs/architecture.md "3. A request", decision 0241). The edge turns each
 * into one `Caller`, checking the organization's state (and the agent's) the same way for all of them.
 * - `api_key`: `X-API-Key` or, on the MCP endpoint, a bearer API key.
 * - `operator`: the admin bearer token (`ADMIN_TOKEN`).
 * - `console`: the developer console's session cookie (plus Origin and X-CSRF-Token on changes).
 * - `visitor_link`: the signed token of a visitor's manage link (`/v1/booking/manage/{token}`).
 * - `feed`: the token of the listing feed URLs (`/feeds/{token}/…`).
 * - `calendar`: the token of an agent's calendar subscription URL (`/calendars/{token}.ics`).
 * - `unsubscribe_link`: the signed token of a visitor email's unsubscribe link (`/email/unsubscribe/{token}`).
 */
export const CREDENTIAL_KINDS = [
  'api_key',
  'operator',
  'console',
  'visitor_link',
  'feed',
  'calendar',
  'unsubscribe_link',
] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** How messages name a credential of each kind. */
const CREDENTIAL_LABELS: Record<CredentialKind, string> = {
  api_key: 'API key',
  operator: 'operator token',
  console: 'console session',
  visitor_link: 'visit link',
  feed: 'feed URL',
  calendar: 'calendar URL',
  unsubscribe_link: 'unsubscribe link',
};

/** Credentials that travel in a URL's `:token` path segment; a feature resolves each (manifest `credentials`). */
export type TokenCredentialKind = Extract<
  CredentialKind,
  'visitor_link' | 'feed' | 'calendar' | 'unsubscribe_link'
>;

/** The organization as a request sees it: the acting one (twin for test keys) with the live one's state. */
export interface CallerOrganization {
  /** The organization the key acts on (the test twin for test-mode keys). */
  id: string;
  /** The live organization: plan, activity and read-only state are its. */
  liveOrganizationId: string;
  name: string;
  plan: Plan;
  isActive: boolean;
  readOnly: boolean;
  livemode: boolean;
  writesPerMinute: number;
  /** ISO 3166 country phone numbers without `+` are read in (libphonenumber). */
  defaultCountry: string;
  /** ISO 4217 currency of prices and budgets given without one. */
  defaultCurrency: string;
  /** MCP results show phone numbers and emails masked (the live organization's setting). */
  mcpMaskPersonalData: boolean;
  /** The language of listings' own text and the portal's fallback (the live organization's, ISO 639-1). */
  defaultLanguage: string;
  /** The other languages the portal serves listings in. */
  otherLanguages: string[];
  /** IANA time zone of the organization's calendar (issue 26). */
  timezone: string;
}

/**
 * Who is calling: resolved from the credential only, never from the body or query, by the one auth
 * hook (platform/auth/auth.plugin.ts) for every credential kind. Services take it first and open their
 * transaction from it (platform/tenancy/caller-tx.ts).
 */
export interface Caller {
  /** The kind of credential presented. */
  credential: CredentialKind;
  /** The credential's id: the API key's, the console session's, the feed's or calendar's, the visit's. */
  keyId: string;
  /** What listings show of the key (`sk_live_AbCd`): request logs name the key with it. */
  keyPrefix: string;
  keyType: KeyType;
  mode: KeyMode;
  scopes: Scope[];
  accessLevel: 1 | 2 | 3;
  agentId: string | null;
  organization: CallerOrganization;
  limits: { requestsPerMinute: number; writesPerMinute: number };
  /** When an API key stops working (its `expiresAt`); null or absent when it does not expire. */
  expiresAt?: Date | null;
  /** Who the events it causes name, when not the key itself (the developer console's session). */
  actor?: Actor;
  /**
   * The most a credential made or rolled by this caller may hold (privilege never grows, decision
   * 0241): the operator grants anything; a console session what its key creation offers (no scope that
   * needs support approval, level 1); an API key its own scopes and level.
   */
  grants: { scopes: readonly Scope[]; accessLevel: 1 | 2 | 3 };
}

/**
 * The same caller on its organization's test twin, or back on the live organization (`organizationId`
 * must be one of the two: a twin shares its live organization's state, so nothing else changes).
 */
export function inMode(caller: Caller, organizationId: string, livemode: boolean): Caller {
  return {
    ...caller,
    mode: livemode ? 'live' : 'test',
    organization: { ...caller.organization, id: organizationId, livemode },
  };
}

/** The actor of events caused through an API key: kind API, and the key's agent when bound to one. */
export function actorOf(caller: Caller): Actor {
  return caller.actor ?? { kind: 'API', userId: caller.agentId };
}

/** The rate limits of the calling key: a read-only key never writes, so no write policy applies to it. */
export function keyLimitsOf(caller: Caller): KeyLimits {
  return {
    keyId: caller.keyId,
    label: caller.credential === 'api_key' ? 'this API key' : `this ${CREDENTIAL_LABELS[caller.credential]}`,
    organizationId: caller.organization.id,
    requestsPerMinute: caller.limits.requestsPerMinute,
    writesPerMinute: caller.keyType === 'read_only_secret' ? 0 : caller.limits.writesPerMinute,
    organizationWritesPerMinute: caller.organization.writesPerMinute,
  };
}
