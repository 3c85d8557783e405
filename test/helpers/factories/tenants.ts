/**
 * Tenants: an organization with its keys, and on request more keys and a messaging set-up. Every
 * test file makes its own, so files and tests share no rows they read.
 */
import type { FastifyInstance } from 'fastify';
import type { CreatedApiKey } from '../../../src/features/api-keys/index.ts';
import type { AdminOrganization } from '../../../src/features/organizations/index.ts';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { admin, expectStatus } from '../http.ts';
import { createAgent } from './agents.ts';
import { createContact, nextPhone } from './contacts.ts';
import { createApiKey, createOrganization, FAST, type OrganizationFields } from './organizations.ts';

/** The body of POST /admin/v1/organizations/:id/api-keys. */
export type KeyBody = Record<string, unknown>;

export interface MessagingOptions {
  /** `false`: no messaging number (sends fail for want of one). */
  number?: boolean;
}

export interface TenantOptions<K extends string = never> {
  /** The organization's fields over name Test Realty and plan BUSINESS. */
  org?: OrganizationFields;
  /** Merged into every key's body before its own options (FAST: no key of the tenant is throttled). */
  everyKey?: KeyBody;
  /** Over a secret key with every scope and access level 3. */
  secret?: KeyBody;
  publishable?: KeyBody;
  /** Over a read-only secret key (made on BUSINESS and ENTERPRISE only). */
  readOnly?: KeyBody;
  /** More keys, by name: `{ level2: { type: 'secret', accessLevel: 2 } }` gives `tenant.keys.level2`. */
  keys?: Record<K, KeyBody>;
  /** An agent, a messaging number, two templates and a contact the agent owns (`tenant.messaging`). */
  messaging?: MessagingOptions;
}

export interface Tenant<K extends string = never> {
  org: AdminOrganization;
  /** Secret key with every scope and access level 3 (unless `secret` said otherwise). */
  secret: CreatedApiKey;
  publishable: CreatedApiKey;
  /** Read-only secret key: only BUSINESS and ENTERPRISE have one (a placeholder that fails auth otherwise). */
  readOnly: CreatedApiKey;
  /** The keys asked for with `keys`, by the same names. */
  keys: Record<K, CreatedApiKey>;
}

export interface MessagingSetup {
  /** The agent Marta Ruiz, who owns the contact. */
  owner: { id: string; firstName: string; lastName: string };
  /** The active messaging number; '' with `number: false`. */
  numberId: string;
  providerNumberId: string;
  /** APPROVED template `visit_followup` (es) with {{name}} and {{street}}. */
  approvedId: string;
  /** PENDING template `price_drop` with {{price}}. */
  pendingId: string;
  /** Lucía Fernández, with a phone (nextPhone), owned by `owner`. */
  contactId: string;
  contactPhone: string;
}

export type MessagingTenant<K extends string = never> = Tenant<K> & { messaging: MessagingSetup };

/**
 * A Spanish agency, Inmobiliaria Sol (national numbers read in ES, prices in EUR), none of whose keys
 * or writes is throttled, with two more secret keys: `level2` (every scope, access level 2) and
 * `noWrite` (the default scopes, so no contacts:write; access level 3). Its read-only key writes nothing.
 */
export const SPANISH_AGENCY = {
  org: {
    name: 'Inmobiliaria Sol',
    defaultCountry: 'ES',
    defaultCurrency: 'EUR',
    writeLimitPerMinute: 100_000,
  },
  everyKey: FAST,
  readOnly: { writeLimitPerMinute: 0 },
  keys: {
    level2: { type: 'secret', scopes: [...SCOPES], accessLevel: 2 },
    noWrite: { type: 'secret', accessLevel: 3 },
  },
} satisfies TenantOptions<'level2' | 'noWrite'>;

/** A tenant made with SPANISH_AGENCY. */
export type SpanishAgency = Tenant<keyof typeof SPANISH_AGENCY.keys>;

/**
 * An agency of Spain ready to message: an unthrottled secret key and organization, a read-only key of
 * 100,000 requests a minute, and the messaging set-up (`tenant.messaging`).
 */
export const MESSAGING_AGENCY = {
  org: { defaultCountry: 'ES', writeLimitPerMinute: 100_000 },
  secret: FAST,
  readOnly: { rateLimitPerMinute: 100_000 },
  messaging: {},
} satisfies TenantOptions;

/** An isolated organization (BUSINESS by default) with a full secret key, a publishable and a read-only key. */
export function createTenant<K extends string = never>(
  app: FastifyInstance,
  options: TenantOptions<K> & { messaging: MessagingOptions },
): Promise<MessagingTenant<K>>;
export function createTenant<K extends string = never>(
  app: FastifyInstance,
  options?: TenantOptions<K>,
): Promise<Tenant<K>>;
export async function createTenant<K extends string = never>(
  app: FastifyInstance,
  options: TenantOptions<K> = {},
): Promise<Tenant<K> | MessagingTenant<K>> {
  const org = await createOrganization(app, options.org);
  const key = (body: KeyBody) => createApiKey(app, org.id, { ...options.everyKey, ...body });
  const secret = await key({ type: 'secret', scopes: [...SCOPES], accessLevel: 3, ...options.secret });
  const publishable = await key({ type: 'publishable', ...options.publishable });
  const readOnly = ['BUSINESS', 'ENTERPRISE'].includes(org.plan)
    ? await key({ type: 'read_only_secret', ...options.readOnly })
    : { ...secret, id: 'key_none', key: 'no-read-only-key-on-this-plan', type: 'read_only_secret' as const };
  const keys = {} as Record<K, CreatedApiKey>;
  for (const name of Object.keys(options.keys ?? {}) as K[]) {
    keys[name] = await key((options.keys as Record<K, KeyBody>)[name]);
  }
  const tenant: Tenant<K> = { org, secret, publishable, readOnly, keys };
  if (!options.messaging) return tenant;
  return { ...tenant, messaging: await messagingOf(app, org.id, options.messaging) };
}

/** The messaging set-up of `createTenant`'s `messaging` option. */
async function messagingOf(
  app: FastifyInstance,
  orgId: string,
  options: MessagingOptions,
): Promise<MessagingSetup> {
  const owner = await createAgent(app, orgId, { firstName: 'Marta', lastName: 'Ruiz' });
  let numberId = '';
  let providerNumberId = '';
  if (options.number !== false) {
    const number = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${orgId}/messaging-numbers`, {
        phone: nextPhone(),
        providerNumberId: `pn${Date.now()}`,
      }),
      201,
    ).data;
    numberId = number.id;
    providerNumberId = number.providerNumberId;
  }
  const template = async (body: Record<string, unknown>): Promise<string> =>
    expectStatus(await admin(app, 'POST', `/admin/v1/organizations/${orgId}/message-templates`, body), 201)
      .data.id;
  const approvedId = await template({
    name: 'visit_followup',
    language: 'es',
    category: 'MARKETING',
    body: 'Hola {{name}}, el piso de {{ street }} sigue disponible. ¿Quedamos, {{name}}?',
    status: 'APPROVED',
  });
  const pendingId = await template({
    name: 'price_drop',
    category: 'MARKETING',
    body: 'New price: {{price}}',
  });
  const contactPhone = nextPhone();
  const contact = await createContact(app, orgId, {
    via: 'admin',
    body: { firstName: 'Lucía', lastName: 'Fernández', phone: contactPhone, ownerId: owner.id },
  });
  return {
    owner: { id: owner.id, firstName: 'Marta', lastName: owner.lastName as string },
    numberId,
    providerNumberId,
    approvedId,
    pendingId,
    contactId: contact.id,
    contactPhone,
  };
}
