import type { Database, Tx } from '../../db/database.ts';
import type { MessageTemplateRow, MessagingNumberRow } from '../../db/schema.ts';
import type { Caller, CallerOrganization } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import {
  pageMeta,
  pageRequest,
  type PageMeta,
  type PageQuery,
  type PageRequest,
} from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import { normalizePhone } from '../../platform/text/phone.ts';
import type {
  CreateMessageTemplateBody,
  CreateMessagingNumberBody,
  MessageTemplate,
  MessagingNumber,
  UpdateMessageTemplateBody,
  UpdateMessagingNumberBody,
} from './messaging-setup.schema.ts';
import * as store from './messaging-setup.store.ts';

/**
 * The back office's messaging set-up: the organization's messaging number (at most one active) and
 * its message templates. No events: this is configuration, like portal settings.
 */

const VARIABLE = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** The variable names of a template body, in order of first appearance. */
export function templateVariables(body: string): string[] {
  return [...new Set([...body.matchAll(VARIABLE)].map((m) => m[1] as string))];
}

/** A template body with each `{{name}}` replaced by `values[name]` (the caller checked every name). */
export function fillTemplate(body: string, values: Record<string, string>): string {
  return body.replace(VARIABLE, (_m, name: string) => values[name] as string);
}

/** The organization's active messaging number (at most one), or null: what sends go out from. */
export async function findActiveMessagingNumber(
  tx: Tx,
  organizationId: string,
): Promise<MessagingNumberRow | null> {
  return store.findActiveMessagingNumber(tx, organizationId);
}

/** A template of the organization by id, or null (a malformed id included). */
export async function findMessageTemplate(
  tx: Tx,
  organizationId: string,
  templateId: string,
): Promise<MessageTemplateRow | null> {
  return isId(templateId, 'tpl') ? store.findMessageTemplateById(tx, organizationId, templateId) : null;
}

/** A messaging number of any organization by id (the provider's hook names only the number), or null. */
export async function findMessagingNumberAnywhere(
  db: Database,
  numberId: string,
): Promise<MessagingNumberRow | null> {
  return isId(numberId, 'mnum') ? db.systemTx((tx) => store.findMessagingNumberAnywhere(tx, numberId)) : null;
}

/** Unique violations of a parallel write become 409 DUPLICATE. */
const DUPLICATES = {
  messaging_numbers_one_active_key:
    'This organization already has an active messaging number: deactivate it first (at most one is active)',
  messaging_numbers_organization_id_phone_key:
    'This phone is already a messaging number of this organization',
  message_templates_organization_id_name_language_key:
    'This organization already has a template with this name and language',
};

/** Runs a set-up change in the caller's organization's transaction; unique violations are 409s. */
function changeSetup<T>(
  db: Database,
  caller: Caller,
  work: (tx: Tx, organization: CallerOrganization) => Promise<T>,
): Promise<T> {
  return writeAs(db, caller, work, DUPLICATES);
}

/** One page of a set-up list (numbers or templates), each row in its API shape. */
function listPage<Row, Item>(
  db: Database,
  caller: Caller,
  query: PageQuery,
  list: (tx: Tx, organizationId: string, page: PageRequest) => Promise<{ items: Row[]; total: number }>,
  toItem: (row: Row) => Item,
): Promise<{ data: Item[]; meta: PageMeta }> {
  const page = pageRequest(query);
  return readAs(db, caller, async (tx) => {
    const { items, total } = await list(tx, caller.organization.id, page);
    return { data: items.map(toItem), meta: pageMeta(total, page) };
  });
}

function toMessagingNumber(row: MessagingNumberRow): MessagingNumber {
  return {
    id: row.id,
    phone: row.phone,
    providerNumberId: row.providerNumberId,
    active: row.active,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function toMessageTemplate(row: MessageTemplateRow): MessageTemplate {
  return {
    id: row.id,
    name: row.name,
    language: row.language,
    category: row.category,
    body: row.body,
    variables: row.variables,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function loadNumber(tx: Tx, organizationId: string, id: string): Promise<MessagingNumberRow> {
  const row = isId(id, 'mnum') ? await store.findMessagingNumberById(tx, organizationId, id) : null;
  if (!row) throw Errors.notFound('Messaging number', id);
  return row;
}

/** 409 naming the active number when `exceptId` is not it: the rule behind the partial unique index. */
async function checkNoOtherActive(tx: Tx, organizationId: string, exceptId: string | null) {
  const active = await store.findActiveMessagingNumber(tx, organizationId);
  if (active && active.id !== exceptId) {
    throw Errors.duplicate(
      `This organization already has an active messaging number (${active.id}, ${active.phone}): deactivate it first`,
      { existingId: active.id },
    );
  }
}

/** Adds a messaging number (active by default); its platform id defaults to the phone's digits. */
export async function createMessagingNumber(
  db: Database,
  caller: Caller,
  body: CreateMessagingNumberBody,
): Promise<MessagingNumber> {
  const organizationId = caller.organization.id;
  return changeSetup(db, caller, async (tx, organization) => {
    const phone = normalizePhone(body.phone, organization.defaultCountry);
    const active = body.active ?? true;
    if (active) await checkNoOtherActive(tx, organizationId, null);
    const row = await store.insertMessagingNumber(tx, {
      id: newId('mnum'),
      organizationId,
      phone,
      providerNumberId: body.providerNumberId ?? phone.slice(1),
      active,
    });
    return toMessagingNumber(row);
  });
}

/** The caller's organization's messaging numbers, active or not, oldest first, paged. */
export async function listMessagingNumbers(
  db: Database,
  caller: Caller,
  query: PageQuery,
): Promise<{ data: MessagingNumber[]; meta: PageMeta }> {
  return listPage(db, caller, query, store.listMessagingNumbers, toMessagingNumber);
}

/** One messaging number of the caller's organization; 404 outside it. */
export async function getMessagingNumber(db: Database, caller: Caller, id: string): Promise<MessagingNumber> {
  const organizationId = caller.organization.id;
  return readAs(db, caller, async (tx) => toMessagingNumber(await loadNumber(tx, organizationId, id)));
}

/** Changes the phone, platform id or activity; activating one while another is active is a 409. */
export async function updateMessagingNumber(
  db: Database,
  caller: Caller,
  id: string,
  body: UpdateMessagingNumberBody,
): Promise<MessagingNumber> {
  const organizationId = caller.organization.id;
  return changeSetup(db, caller, async (tx, organization) => {
    await loadNumber(tx, organizationId, id);
    const changes: Partial<store.NewMessagingNumber> = {};
    if (body.phone !== undefined) changes.phone = normalizePhone(body.phone, organization.defaultCountry);
    if (body.providerNumberId !== undefined) changes.providerNumberId = body.providerNumberId;
    if (body.active !== undefined) {
      if (body.active) await checkNoOtherActive(tx, organizationId, id);
      changes.active = body.active;
    }
    const row = await store.updateMessagingNumber(tx, organizationId, id, changes);
    if (!row) throw Errors.notFound('Messaging number', id);
    return toMessagingNumber(row);
  });
}

/** Deletes a messaging number; messages already exchanged stay. */
export async function deleteMessagingNumber(
  db: Database,
  caller: Caller,
  id: string,
): Promise<{ id: string; deleted: true }> {
  const organizationId = caller.organization.id;
  return changeSetup(db, caller, async (tx) => {
    const row = isId(id, 'mnum') ? await store.deleteMessagingNumber(tx, organizationId, id) : null;
    if (!row) throw Errors.notFound('Messaging number', id);
    return { id, deleted: true as const };
  });
}

async function loadTemplate(tx: Tx, organizationId: string, id: string): Promise<MessageTemplateRow> {
  const row = isId(id, 'tpl') ? await store.findMessageTemplateById(tx, organizationId, id) : null;
  if (!row) throw Errors.notFound('Message template', id);
  return row;
}

/** Adds a template (PENDING unless given, language `en` unless given); its variables are read from the body. */
export async function createMessageTemplate(
  db: Database,
  caller: Caller,
  body: CreateMessageTemplateBody,
): Promise<MessageTemplate> {
  const organizationId = caller.organization.id;
  return changeSetup(db, caller, async (tx) => {
    const row = await store.insertMessageTemplate(tx, {
      id: newId('tpl'),
      organizationId,
      name: body.name,
      language: body.language ?? 'en',
      category: body.category,
      body: body.body,
      variables: templateVariables(body.body),
      status: body.status ?? 'PENDING',
    });
    return toMessageTemplate(row);
  });
}

/** The caller's organization's message templates, whatever their review status, oldest first, paged. */
export async function listMessageTemplates(
  db: Database,
  caller: Caller,
  query: PageQuery,
): Promise<{ data: MessageTemplate[]; meta: PageMeta }> {
  return listPage(db, caller, query, store.listMessageTemplates, toMessageTemplate);
}

/** One message template of the caller's organization; 404 outside it. */
export async function getMessageTemplate(db: Database, caller: Caller, id: string): Promise<MessageTemplate> {
  const organizationId = caller.organization.id;
  return readAs(db, caller, async (tx) => toMessageTemplate(await loadTemplate(tx, organizationId, id)));
}

/** Changes a template (e.g. APPROVED once the platform accepted it); a new body re-reads its variables. */
export async function updateMessageTemplate(
  db: Database,
  caller: Caller,
  id: string,
  body: UpdateMessageTemplateBody,
): Promise<MessageTemplate> {
  const organizationId = caller.organization.id;
  return changeSetup(db, caller, async (tx) => {
    await loadTemplate(tx, organizationId, id);
    const changes: Partial<store.NewMessageTemplate> = { ...body };
    if (body.body !== undefined) changes.variables = templateVariables(body.body);
    const row = await store.updateMessageTemplate(tx, organizationId, id, changes);
    if (!row) throw Errors.notFound('Message template', id);
    return toMessageTemplate(row);
  });
}

/** Deletes a template; messages sent with it keep their text (their templateId becomes null). */
export async function deleteMessageTemplate(
  db: Database,
  caller: Caller,
  id: string,
): Promise<{ id: string; deleted: true }> {
  const organizationId = caller.organization.id;
  return changeSetup(db, caller, async (tx) => {
    const row = isId(id, 'tpl') ? await store.deleteMessageTemplate(tx, organizationId, id) : null;
    if (!row) throw Errors.notFound('Message template', id);
    return { id, deleted: true as const };
  });
}
