import type { Actor } from '../events/catalog.ts';
import type { KeyLimits } from '../rate-limit/rate-limits.ts';
import type { KeyMode, KeyType } from './keys.ts';
import type { Plan } from './plans.ts';
import type { Scope } from './scopes.ts';

/** The organization as a request sees it: the acting one (twin for test keys) with the live one's state. */
export interface PrincipalOrganization {
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
}

/** Who is calling: resolved from the credential only, never from the body or query. */
export interface Principal {
  keyId: string;
  /** What listings show of the key (`sk_live_AbCd`): request logs name the key with it. */
  keyPrefix: string;
  keyType: KeyType;
  mode: KeyMode;
  scopes: Scope[];
  accessLevel: 1 | 2 | 3;
  agentId: string | null;
  organization: PrincipalOrganization;
  limits: { requestsPerMinute: number; writesPerMinute: number };
  /** Who the events it causes name, when not the key itself (the developer console's session). */
  actor?: Actor;
}

/** The actor of events caused through an API key: kind API, and the key's agent when bound to one. */
export function actorOf(principal: Principal): Actor {
  return principal.actor ?? { kind: 'API', userId: principal.agentId };
}

/** The rate limits of the calling key: a read-only key never writes, so no write policy applies to it. */
export function keyLimitsOf(principal: Principal): KeyLimits {
  return {
    keyId: principal.keyId,
    organizationId: principal.organization.id,
    requestsPerMinute: principal.limits.requestsPerMinute,
    writesPerMinute: principal.keyType === 'read_only_secret' ? 0 : principal.limits.writesPerMinute,
    organizationWritesPerMinute: principal.organization.writesPerMinute,
  };
}
