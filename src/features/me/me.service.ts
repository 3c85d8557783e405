import { keyLimitsOf, type Principal } from '../../platform/auth/principal.ts';
import type { RateLimits } from '../../platform/rate-limit/rate-limits.ts';
import type { Me, RateLimitPolicy } from './me.schema.ts';

/** Describes the calling key: what GET /v1/me answers. Needs no database: the principal has it all. */
export function describeKey(principal: Principal): Me {
  const { organization } = principal;
  return {
    apiKeyId: principal.keyId,
    organization: {
      id: organization.id,
      name: organization.name,
      plan: organization.plan,
      isActive: organization.isActive,
      readOnly: organization.readOnly,
      livemode: organization.livemode,
    },
    scopes: principal.scopes,
    keyType: principal.keyType,
    mode: principal.mode,
    accessLevel: principal.accessLevel,
    agentId: principal.agentId,
    limits: {
      requestsPerMinute: principal.limits.requestsPerMinute,
      writesPerMinute: principal.limits.writesPerMinute,
      organizationWritesPerMinute: organization.writesPerMinute,
    },
  };
}

/** The policies of the calling key from the live counters: what GET /v1/rate-limits answers. */
export function describeRateLimits(limits: RateLimits, principal: Principal): Promise<RateLimitPolicy[]> {
  return limits.describe(keyLimitsOf(principal));
}
