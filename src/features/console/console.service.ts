import type { FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.ts';
import type { ConsoleSession, ConsoleSessions } from '../../platform/auth/console-sessions.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
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
 * The caller console actions run as (decision 0211), in the chosen mode: the auth hook's caller (the
 * session's live organization, checked as every credential is) or, in test mode, the same on its twin.
 */
export async function consoleCallerIn(
  deps: ConsoleDeps,
  caller: Caller,
  mode: 'live' | 'test',
): Promise<Caller> {
  if (mode === 'live') return caller;
  const twin = await twinOf(deps, caller.organization.id);
  if (!twin) throw Errors.invalidField('query.mode', 'this organization has no test twin');
  return { ...caller, mode, organization: { ...caller.organization, id: twin, livemode: false } };
}

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
  caller: Caller,
  keys: readonly AdminApiKey[],
): Promise<{ organizationWrites: PolicyState; keys: KeyUsage[] }> {
  const organization = caller.organization;
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
    organizationWrites,
    keys: keys.map((key, i) => ({
      id: key.id,
      keyPrefix: key.keyPrefix,
      name: key.name,
      type: key.type,
      policies: (perKey[i] as PolicyState[]).filter((policy) => policy.name !== 'organization-writes'),
    })),
  };
}
