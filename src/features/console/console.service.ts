import type { FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.ts';
import type { ConsoleSession, ConsoleSessions } from '../../platform/auth/console-sessions.ts';
import { PLAN_WRITE_LIMITS } from '../../platform/auth/plans.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { SCOPES } from '../../platform/auth/scopes.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import type { PolicyState, RateLimits } from '../../platform/rate-limit/rate-limits.ts';
import type { AdminApiKey } from '../api-keys/index.ts';
import { loadOrganization } from '../organizations/index.ts';
import type { ConsoleLink, ConsoleSessionInfo } from './console.schema.ts';

export interface ConsoleDeps {
  db: Database;
  consoleSessions: ConsoleSessions;
  /** PUBLIC_URL: where links point; else the address the minting request came to. */
  publicUrl: string | undefined;
}

/**
 * Mints a one-time console link for a live organization (a twin's id is refused: the console of the
 * live organization shows both modes).
 */
export async function mintConsoleLink(
  deps: ConsoleDeps,
  organizationId: string,
  origin: string,
): Promise<ConsoleLink> {
  const record = await loadOrganization(deps, organizationId);
  if (record.row.liveOrganizationId !== null)
    throw Errors.invalidField(
      'path.orgId',
      `is a test twin; mint the link for its live organization ${record.row.liveOrganizationId}`,
    );
  const link = await deps.consoleSessions.mintLink(organizationId);
  return { url: `${origin}/console/start?token=${link.token}`, expiresAt: link.expiresAt.toISOString() };
}

/** What the page shows of its session: the organization (and its twin) and the CSRF token. */
export async function sessionInfo(deps: ConsoleDeps, session: ConsoleSession): Promise<ConsoleSessionInfo> {
  const record = await loadOrganization(deps, session.organizationId);
  return {
    organization: { id: record.row.id, name: record.row.name, testOrganizationId: record.testOrganizationId },
    expiresAt: session.expiresAt.toISOString(),
    csrfToken: session.csrfToken,
  };
}

/** The session of a console route (the auth hook set it; a route without one is a wiring error). */
export function consoleSessionOf(request: FastifyRequest): ConsoleSession {
  if (!request.consoleSession) throw Errors.internal(new Error('console route without a console session'));
  return request.consoleSession;
}

/** 404 for an unknown organization. */
export async function requireOrganization(deps: ConsoleDeps, organizationId: string): Promise<void> {
  await loadOrganization(deps, organizationId);
}

/**
 * The principal console actions run as (decision 0211): the session's organization in the chosen
 * mode (test: its twin), every scope, level 3, and the actor CONSOLE with the session id, so the v1
 * services apply their own rules and events name the console.
 */
export async function consolePrincipal(
  deps: ConsoleDeps,
  session: ConsoleSession,
  mode: 'live' | 'test',
): Promise<Principal> {
  const record = await loadOrganization(deps, session.organizationId);
  const live = record.row;
  const id = mode === 'test' ? record.testOrganizationId : live.id;
  if (!id) throw Errors.invalidField('query.mode', 'this organization has no test twin');
  return {
    keyId: session.id,
    keyPrefix: 'console',
    keyType: 'secret',
    mode,
    scopes: [...SCOPES],
    accessLevel: 3,
    agentId: null,
    organization: {
      id,
      liveOrganizationId: live.id,
      name: live.name,
      plan: live.plan,
      isActive: live.isActive,
      readOnly: live.readOnly,
      livemode: mode === 'live',
      writesPerMinute: live.writeLimitPerMinute ?? PLAN_WRITE_LIMITS[live.plan],
      defaultCountry: live.defaultCountry,
      defaultCurrency: live.defaultCurrency,
      mcpMaskPersonalData: live.mcpMaskPersonalData,
      defaultLanguage: live.defaultLanguage,
      otherLanguages: live.otherLanguages,
    },
    limits: { requestsPerMinute: 0, writesPerMinute: 0 },
    actor: consoleActor(session),
  };
}

/** The actor of console actions: kind CONSOLE, the session's id. */
export const consoleActor = (session: ConsoleSession): Actor => ({ kind: 'CONSOLE', userId: session.id });

/** The test twin of a live organization (null when it has none). */
export async function twinOf(deps: ConsoleDeps, organizationId: string): Promise<string | null> {
  return (await loadOrganization(deps, organizationId)).testOrganizationId;
}

/** One key's policies as they stand (the console's limits panel). */
export interface KeyUsage {
  id: string;
  keyPrefix: string;
  name: string | null;
  type: string;
  policies: PolicyState[];
}

/**
 * Live usage of every rate-limit policy of the organization in one mode (issue 22, item 6): each
 * active key's request and write windows and the organization's shared write window, read from the
 * counters the requests use (Redis when REDIS_URL is set, so every process's requests are counted).
 */
export async function limitUsage(
  rateLimits: RateLimits,
  principal: Principal,
  keys: readonly AdminApiKey[],
): Promise<{ organizationWrites: PolicyState; keys: KeyUsage[] }> {
  const organization = principal.organization;
  const [organizationWrites, ...perKey] = await Promise.all([
    rateLimits.describeOrganizationWrites(organization.id, organization.writesPerMinute),
    ...keys.map((key) =>
      rateLimits.describe({
        keyId: key.id,
        organizationId: key.organizationId,
        requestsPerMinute: key.rateLimitPerMinute,
        writesPerMinute: key.type === 'read_only_secret' ? 0 : key.writeLimitPerMinute,
        organizationWritesPerMinute: organization.writesPerMinute,
      }),
    ),
  ]);
  return {
    organizationWrites: organizationWrites as PolicyState,
    keys: keys.map((key, i) => ({
      id: key.id,
      keyPrefix: key.keyPrefix,
      name: key.name,
      type: key.type,
      policies: (perKey[i] as PolicyState[]).filter((policy) => policy.name !== 'organization-writes'),
    })),
  };
}
