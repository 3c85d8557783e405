import type { KeyType } from './keys.ts';

import type { Plan } from '../../db/schema.ts';

// The plans are stored values (db/schema/platform.ts); what each allows is decided here.
export { PLANS, type Plan } from '../../db/schema.ts';

/** Key types each plan may hold. FREE has no API access at all. */
export const PLAN_KEY_TYPES: Record<Plan, readonly KeyType[]> = {
  FREE: [],
  STARTER: ['publishable', 'secret'],
  PROFESSIONAL: ['publishable', 'secret'],
  BUSINESS: ['publishable', 'secret', 'read_only_secret'],
  ENTERPRISE: ['publishable', 'secret', 'read_only_secret'],
};

/** Organization-wide writes per minute when the organization has no override (docs/decisions/0009-plans.md). */
export const PLAN_WRITE_LIMITS: Record<Plan, number> = {
  FREE: 0,
  STARTER: 120,
  PROFESSIONAL: 300,
  BUSINESS: 600,
  ENTERPRISE: 1200,
};

/** Per-key limits by key type (SPEC.md "Limits"): requests per minute, of which writes. */
export const KEY_TYPE_LIMITS: Record<KeyType, { requestsPerMinute: number; writesPerMinute: number }> = {
  publishable: { requestsPerMinute: 300, writesPerMinute: 60 },
  secret: { requestsPerMinute: 60, writesPerMinute: 30 },
  read_only_secret: { requestsPerMinute: 60, writesPerMinute: 0 },
};

/** Why a plan refuses a key type, or null when it allows it. */
export function planRefusal(plan: Plan, type: KeyType): string | null {
  if (PLAN_KEY_TYPES[plan].includes(type)) return null;
  if (plan === 'FREE') return 'The FREE plan has no API access; upgrade to STARTER or above';
  return `The ${plan} plan does not allow ${type.replaceAll('_', ' ')} keys; they need BUSINESS or ENTERPRISE`;
}
