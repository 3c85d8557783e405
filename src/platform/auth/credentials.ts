import type { AppError } from '../errors/errors.ts';
import { Errors } from '../errors/errors.ts';
import type { Actor } from '../events/catalog.ts';
import type { Caller, CallerOrganization, TokenCredentialKind } from './caller.ts';
import type { ConsoleSession } from './console-sessions.ts';
import type { Database } from '../../db/database.ts';
import { isId } from '../ids/ids.ts';
import { loadCallerOrganization, type OrganizationStates } from './organization-states.ts';
import { DEFAULT_SECRET_SCOPES, SCOPES, type Scope } from './scopes.ts';

/** What a URL token resolves to: the organization (and agent) it grants, and the credential's own id. */
export interface TokenCredential {
  organizationId: string;
  /** The credential's id (the calendar feed's agent, the feed's organization, the visit). */
  id: string;
  /** The agent the credential belongs to (a calendar URL): the agent's state is checked too. */
  agentId: string | null;
}

/**
 * A feature's URL credential (manifest `credentials`): how its token resolves, what it grants, and
 * the one 404 every wrong, replaced or removed token gets. The auth hook calls `resolve`, then checks
 * the organization (and agent) exactly as for an API key (decision 0241).
 */
export interface TokenCredentialResolver {
  kind: TokenCredentialKind;
  /** The credential a token is, or null. Looked up by hash or checked by signature, across tenants. */
  resolve(token: string): Promise<TokenCredential | null>;
  /** What a caller holding it may do (documentation, the route matrix). */
  scopes: readonly Scope[];
  /** Its own rate limits, per credential (a visitor's link, an agent's calendar URL, the feed URLs). */
  limits: Caller['limits'];
  /** Who the events it causes name. */
  actor: Actor;
  notFound(): AppError;
}

/** The admin bearer token's actor: the operator's own back office. */
export const OPERATOR_ACTOR: Actor = { kind: 'SYSTEM', userId: null };

/** What the operator may grant: anything (it is who approves scopes and levels). */
const OPERATOR_GRANTS: Caller['grants'] = { scopes: SCOPES, accessLevel: 3 };

/**
 * Refuses a caller whose organization cannot act: inactive (403) for every credential, read-only
 * (402) on writes; the operator is the one who sets both, so it is never refused (decision 0241).
 */
export function admitOrganization(caller: Caller, write: boolean): void {
  if (caller.credential === 'operator') return;
  if (!caller.organization.isActive) throw Errors.forbidden('This organization is not active');
  if (write && caller.organization.readOnly) throw Errors.readOnlyAccount();
}

/** Refuses a credential that belongs to an agent no longer active (or deleted). */
export function admitAgent(active: boolean | null): void {
  if (active !== true) throw Errors.forbidden('The agent this credential belongs to is not active');
}

/**
 * The operator's token and a console session are staff credentials: counted like a generous key, so a
 * runaway script is slowed rather than the database (the organization's write limit still applies).
 */
const STAFF_LIMITS: Caller['limits'] = { requestsPerMinute: 1_200, writesPerMinute: 300 };

/** A caller with every scope at level 3 that no key stands for (the operator, a console session). */
function staffCaller(
  credential: 'operator' | 'console',
  id: string,
  organization: CallerOrganization,
  actor: Actor,
  grants: Caller['grants'],
): Caller {
  return {
    credential,
    keyId: id,
    keyPrefix: credential,
    keyType: 'secret',
    mode: organization.livemode ? 'live' : 'test',
    scopes: [...SCOPES],
    accessLevel: 3,
    agentId: null,
    organization,
    limits: STAFF_LIMITS,
    actor,
    grants,
  };
}

/** The operator acting on one organization (an admin route under /organizations/{orgId}/). */
export function operatorCaller(organization: CallerOrganization): Caller {
  return staffCaller('operator', 'operator', organization, OPERATOR_ACTOR, OPERATOR_GRANTS);
}

/**
 * The operator acting on an organization outside a request (the demo seed, the CLI's import): its
 * caller, read now; 404 for an unknown organization.
 */
export async function operatorCallerOf(db: Database, organizationId: string): Promise<Caller> {
  const organization = isId(organizationId, 'org') ? await loadCallerOrganization(db, organizationId) : null;
  if (!organization) throw Errors.notFound('Organization', organizationId);
  return operatorCaller(organization);
}

/**
 * A developer-console session (decision 0211) on its live organization: every scope at level 3 for
 * the v1 services it runs, but it grants only what the console's key creation offers.
 */
export function consoleCaller(session: ConsoleSession, organization: CallerOrganization): Caller {
  const actor: Actor = { kind: 'CONSOLE', userId: session.id };
  return staffCaller('console', session.id, organization, actor, {
    scopes: DEFAULT_SECRET_SCOPES,
    accessLevel: 1,
  });
}

/** The holder of a URL credential: what the feature's resolver grants, nothing to grant onwards. */
export function tokenCaller(
  resolver: TokenCredentialResolver,
  credential: TokenCredential,
  organization: CallerOrganization,
): Caller {
  return {
    credential: resolver.kind,
    keyId: credential.id,
    keyPrefix: resolver.kind,
    keyType: 'publishable',
    mode: organization.livemode ? 'live' : 'test',
    scopes: [...resolver.scopes],
    accessLevel: 1,
    agentId: credential.agentId,
    organization,
    limits: resolver.limits,
    actor: resolver.actor,
    grants: { scopes: [], accessLevel: 1 },
  };
}

/** The caller of a URL credential: resolved by its feature, then the organization and agent checked. */
export async function resolveTokenCaller(
  resolver: TokenCredentialResolver,
  token: string,
  states: OrganizationStates,
  write: boolean,
): Promise<Caller> {
  const credential = await resolver.resolve(token);
  if (!credential) throw resolver.notFound();
  const organization = await states.organization(credential.organizationId);
  if (!organization) throw resolver.notFound();
  const caller = tokenCaller(resolver, credential, organization);
  admitOrganization(caller, write);
  if (credential.agentId !== null)
    admitAgent(await states.agentActive(credential.organizationId, credential.agentId));
  return caller;
}
