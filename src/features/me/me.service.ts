import type { Principal } from '../../platform/auth/principal.ts';
import type { Me } from './me.schema.ts';

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
