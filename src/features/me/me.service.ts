import { keyLimitsOf, type Caller } from '../../platform/auth/caller.ts';
import type { RateLimits } from '../../platform/rate-limit/rate-limits.ts';
import type { Me, RateLimitPolicy } from './me.schema.ts';

/** Describes the calling key: what GET /v1/me answers. Needs no database: the caller has it all. */
export function describeKey(caller: Caller): Me {
  const { organization } = caller;
  return {
    apiKeyId: caller.keyId,
    organization: {
      id: organization.id,
      name: organization.name,
      plan: organization.plan,
      isActive: organization.isActive,
      readOnly: organization.readOnly,
      livemode: organization.livemode,
    },
    scopes: caller.scopes,
    keyType: caller.keyType,
    mode: caller.mode,
    accessLevel: caller.accessLevel,
    agentId: caller.agentId,
    limits: {
      requestsPerMinute: caller.limits.requestsPerMinute,
      writesPerMinute: caller.limits.writesPerMinute,
      organizationWritesPerMinute: organization.writesPerMinute,
    },
  };
}

/** The policies of the calling key from the live counters: what GET /v1/rate-limits answers. */
export function describeRateLimits(limits: RateLimits, caller: Caller): Promise<RateLimitPolicy[]> {
  return limits.describe(keyLimitsOf(caller));
}
