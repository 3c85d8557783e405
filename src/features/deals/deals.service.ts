import type { Database, Tx } from '../../db/database.ts';
import { databaseError } from '../../db/errors.ts';
import type { DealRow, PipelineRow, PipelineStageRow } from '../../db/schema.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { pageMeta, pageRequest, type PageMeta } from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { findContactInTx } from '../contacts/contacts.service.ts';
import type { Contact } from '../contacts/contacts.schema.ts';
import { inOrganization } from './deals-pipelines.service.ts';
import * as pipelineStore from './deals-pipelines.store.ts';
import {
  DealCreated,
  DealDeleted,
  DealLost,
  DealStageChanged,
  DealUpdated,
  DealWon,
} from './deals.events.ts';
import {
  DEAL_LEAD_SOURCES,
  type CreateDealBody,
  type Deal,
  type DealFilter,
  type DealIntent,
  type DealLeadSource,
  type DealStatus,
  type MoveDealBody,
  type SaasBillingPeriod,
  type UpdateDealBody,
} from './deals.schema.ts';
import * as store from './deals.store.ts';
import { isPropertyOf } from '../properties/properties.service.ts';
import { isAgentOf } from '../agents/agents.service.ts';

/** Back-office changes are recorded with a SYSTEM actor (the operator). */
const OPERATOR: Actor = { kind: 'SYSTEM', userId: null };
const FOREIGN_KEY_VIOLATION = '23503';

const iso = (value: Date | null) => (value === null ? null : value.toISOString());

/** The SPEC Deal as the API and event payloads show it. */
export function toDeal(row: DealRow, stageName: string): Deal {
  return {
    id: row.id,
    code: row.code,
    title: row.title,
    value: row.value,
    currency: row.currency,
    probability: row.probability,
    status: row.status as DealStatus,
    intent: row.intent as DealIntent,
    leadSource: row.leadSource as DealLeadSource,
    lostReason: row.lostReason,
    aiCreated: row.aiCreated,
    agentId: row.agentId,
    contactId: row.contactId,
    propertyId: row.propertyId,
    pipelineId: row.pipelineId,
    stageId: row.stageId,
    stageName,
    stageEnteredAt: row.stageEnteredAt.toISOString(),
    expectedCloseDate: iso(row.expectedCloseDate),
    closedAt: iso(row.closedAt),
    saasPlanId: row.saasPlanId,
    saasPlanName: row.saasPlanName,
    saasBillingPeriod: row.saasBillingPeriod as SaasBillingPeriod | null,
    saasMrrAmount: row.saasMrrAmount,
    trialStartedAt: iso(row.trialStartedAt),
    trialEndsAt: iso(row.trialEndsAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * An instant from a date (`2026-03-01`, read as midnight UTC) or a date-time with offset (the
 * schema checked the shape); a 400 naming `field` for a date that does not exist (`2026-02-30`).
 */
export function parseInstant(value: string, field: string): Date {
  const day = value.slice(0, 10);
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const calendar = new Date(Date.UTC(year, month - 1, date));
  const instant = value.length === 10 ? calendar : new Date(value);
  if (calendar.toISOString().slice(0, 10) !== day || Number.isNaN(instant.getTime()))
    throw Errors.invalidField(field, 'is not a valid date or date-time');
  return instant;
}

const instantOrNull = (value: string | null | undefined, field: string) =>
  value === null || value === undefined ? null : parseInstant(value, field);

/** Turns list query parameters into a store filter; 400 when a range ends before it starts. */
function dealListFilter(filter: DealFilter): store.DealListFilter {
  const parsed: store.DealListFilter = {
    pipelineId: filter.pipelineId,
    stageId: filter.stageId,
    status: filter.status,
    agentId: filter.agentId,
    contactId: filter.contactId,
    intent: filter.intent,
    leadSource: filter.leadSource,
  };
  for (const [after, before] of [
    ['expectedCloseAfter', 'expectedCloseBefore'],
    ['createdAfter', 'createdBefore'],
  ] as const) {
    const from = filter[after] === undefined ? undefined : parseInstant(filter[after], `query.${after}`);
    const to = filter[before] === undefined ? undefined : parseInstant(filter[before], `query.${before}`);
    if (from && to && from >= to) throw Errors.invalidField(`query.${before}`, `must be later than ${after}`);
    parsed[after] = from;
    parsed[before] = to;
  }
  return parsed;
}

function dealListSort(filter: DealFilter): store.DealListSort {
  const by = filter.sortBy ?? 'createdAt';
  return { by, order: filter.sortOrder ?? (by === 'expectedCloseDate' ? 'asc' : 'desc') };
}

/** A checked list request: filters parsed, sort resolved, page computed (before any transaction opens). */
function dealListRequest(filter: DealFilter, query: { page?: number; pageSize?: number }) {
  return { filter: dealListFilter(filter), sort: dealListSort(filter), page: pageRequest(query) };
}

async function dealsPage(
  tx: Tx,
  organizationId: string,
  request: ReturnType<typeof dealListRequest>,
): Promise<{ data: Deal[]; meta: PageMeta }> {
  const { items, total } = await store.listDeals(
    tx,
    organizationId,
    request.filter,
    request.sort,
    request.page,
  );
  return {
    data: items.map((item) => toDeal(item.deal, item.stageName)),
    meta: pageMeta(total, request.page),
  };
}

/** The organization's deals matching `filter` (filters and sort), one page (v1 and MCP). */
export async function listDeals(
  db: Database,
  organizationId: string,
  filter: DealFilter,
  page: { page?: number; pageSize?: number } = {},
): Promise<{ data: Deal[]; meta: PageMeta }> {
  const request = dealListRequest(filter, page);
  return db.tenantTx(organizationId, (tx) => dealsPage(tx, organizationId, request));
}

/** The same list for the back office (404 for an unknown organization). */
export async function listAdminDeals(
  db: Database,
  organizationId: string,
  query: DealFilter & { page?: number; pageSize?: number },
) {
  const request = dealListRequest(query, query);
  return inOrganization(db, organizationId, (tx) => dealsPage(tx, organizationId, request));
}

async function loadDeal(
  tx: Tx,
  organizationId: string,
  dealId: string,
  options: { lock?: boolean } = {},
): Promise<store.DealWithStage> {
  const found = isId(dealId, 'deal') ? await store.findDealById(tx, organizationId, dealId, options) : null;
  if (!found) throw Errors.notFound('Deal', dealId);
  return found;
}

/** One deal of the organization; 404 when unknown or another tenant's (v1 and MCP). */
export async function getDeal(db: Database, organizationId: string, dealId: string): Promise<Deal> {
  if (!isId(dealId, 'deal')) throw Errors.notFound('Deal', dealId);
  const found = await db.tenantTx(organizationId, (tx) => store.findDealById(tx, organizationId, dealId));
  if (!found) throw Errors.notFound('Deal', dealId);
  return toDeal(found.deal, found.stageName);
}

/** One deal, back-office view (the same resource). */
export async function getAdminDeal(db: Database, organizationId: string, dealId: string): Promise<Deal> {
  return inOrganization(db, organizationId, async (tx) => {
    const found = await loadDeal(tx, organizationId, dealId);
    return toDeal(found.deal, found.stageName);
  });
}

async function requireContact(tx: Tx, organizationId: string, contactId: string): Promise<Contact> {
  const contact = isId(contactId, 'ct') ? await findContactInTx(tx, organizationId, contactId) : null;
  if (!contact) throw Errors.invalidField('body.contactId', 'does not name a contact of this organization');
  return contact;
}

/** The agent and property a deal refers to must be the organization's (null clears them). */
async function checkReferences(
  tx: Tx,
  organizationId: string,
  body: { agentId?: string | null; propertyId?: string | null },
): Promise<void> {
  if (body.agentId !== undefined && body.agentId !== null) {
    if (!(await isAgentOf(tx, organizationId, body.agentId)))
      throw Errors.invalidField('body.agentId', 'does not name an agent of this organization');
  }
  if (body.propertyId !== undefined && body.propertyId !== null) {
    if (!(await isPropertyOf(tx, organizationId, body.propertyId)))
      throw Errors.invalidField('body.propertyId', 'does not name a property of this organization');
  }
}

async function requireStage(tx: Tx, organizationId: string, stageId: string): Promise<PipelineStageRow> {
  const stage = isId(stageId, 'stg') ? await pipelineStore.findStageById(tx, organizationId, stageId) : null;
  if (!stage)
    throw Errors.invalidField('body.stageId', 'does not name a pipeline stage of this organization');
  return stage;
}

/**
 * Where a new deal starts: the given stage (of the given pipeline, when both are sent), else the
 * first OPEN stage of the given pipeline, else of the organization's default pipeline.
 */
async function placeOf(
  tx: Tx,
  organizationId: string,
  body: { pipelineId?: string; stageId?: string },
): Promise<{ pipeline: PipelineRow; stage: PipelineStageRow }> {
  let pipeline: PipelineRow | null = null;
  if (body.pipelineId !== undefined) {
    pipeline = isId(body.pipelineId, 'pl')
      ? await pipelineStore.findPipelineById(tx, organizationId, body.pipelineId)
      : null;
    if (!pipeline)
      throw Errors.invalidField('body.pipelineId', 'does not name a pipeline of this organization');
  }
  if (body.stageId !== undefined) {
    const stage = await requireStage(tx, organizationId, body.stageId);
    if (pipeline && stage.pipelineId !== pipeline.id)
      throw Errors.invalidField('body.stageId', `is not a stage of pipeline ${pipeline.id}`);
    pipeline ??= await pipelineStore.findPipelineById(tx, organizationId, stage.pipelineId);
    if (!pipeline) throw Errors.internal(new Error(`stage ${stage.id} has no pipeline`));
    return { pipeline, stage };
  }
  pipeline ??= await pipelineStore.findDefaultPipeline(tx, organizationId);
  if (!pipeline)
    throw Errors.invalidField('body.pipelineId', 'is required: the organization has no pipeline yet');
  const stages = await pipelineStore.listStages(tx, organizationId, [pipeline.id]);
  const first = stages.find((stage) => stage.kind === 'OPEN');
  if (!first) throw Errors.internal(new Error(`pipeline ${pipeline.id} has no OPEN stage`));
  return { pipeline, stage: first };
}

/** A deal's probability in a stage: WON 100 and LOST 0 always (SPEC: 100 when won). */
function probabilityIn(stage: PipelineStageRow): number {
  if (stage.kind === 'WON') return 100;
  if (stage.kind === 'LOST') return 0;
  return stage.probability;
}

function checkTrial(startedAt: Date | null, endsAt: Date | null) {
  if (startedAt && endsAt && endsAt < startedAt)
    throw Errors.invalidField('body.trialEndsAt', 'must not be earlier than trialStartedAt');
}

/** A reference disappeared between our check and the write (deleted stage, contact, ...): 409, not 500. */
async function refusingRaces<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (databaseError(error)?.code === FOREIGN_KEY_VIOLATION)
      throw Errors.duplicate('A record this deal refers to was changed or deleted meanwhile: retry');
    throw error;
  }
}

/**
 * Creates a deal (back office) with the next `DL-` code: its status and probability follow the
 * stage's kind, closedAt is set when it starts WON or LOST. The contact, agent, property and stage
 * must be the organization's (400 naming the field).
 */
export async function createDeal(db: Database, organizationId: string, body: CreateDealBody): Promise<Deal> {
  return refusingRaces(() =>
    inOrganization(db, organizationId, async (tx, organization) => {
      const title = body.title.trim();
      if (title.length === 0) throw Errors.invalidField('body.title', 'must not be blank');
      const contact = await requireContact(tx, organizationId, body.contactId);
      const { pipeline, stage } = await placeOf(tx, organizationId, body);
      await checkReferences(tx, organizationId, body);
      if (body.lostReason != null && stage.kind !== 'LOST')
        throw Errors.invalidField('body.lostReason', 'only applies to a deal in a LOST stage');
      const trialStartedAt = instantOrNull(body.trialStartedAt, 'body.trialStartedAt');
      const trialEndsAt = instantOrNull(body.trialEndsAt, 'body.trialEndsAt');
      checkTrial(trialStartedAt, trialEndsAt);
      const sequence = await store.nextCounter(tx, organizationId, 'deal');
      const row = await store.insertDeal(
        tx,
        {
          id: newId('deal'),
          organizationId,
          code: `DL-${String(sequence).padStart(6, '0')}`,
          title,
          value: body.value ?? 0,
          currency: body.currency ?? organization.defaultCurrency,
          probability: probabilityIn(stage),
          status: stage.kind,
          intent: body.intent ?? 'PURCHASE',
          leadSource: body.leadSource ?? inheritedSource(contact),
          lostReason: stage.kind === 'LOST' ? (body.lostReason ?? null) : null,
          aiCreated: body.aiCreated ?? false,
          agentId: body.agentId ?? null,
          contactId: contact.id,
          propertyId: body.propertyId ?? null,
          pipelineId: pipeline.id,
          stageId: stage.id,
          expectedCloseDate: instantOrNull(body.expectedCloseDate, 'body.expectedCloseDate'),
          saasPlanId: body.saasPlanId ?? null,
          saasPlanName: body.saasPlanName ?? null,
          saasBillingPeriod: body.saasBillingPeriod ?? null,
          saasMrrAmount: body.saasMrrAmount ?? null,
          trialStartedAt,
          trialEndsAt,
        },
        stage.kind !== 'OPEN',
      );
      const deal = toDeal(row, stage.name);
      await recordEvent(tx, { type: DealCreated.type, data: { deal }, actor: OPERATOR });
      return deal;
    }),
  );
}

/** A deal's default lead source is its contact's source (the two value sets are the same). */
function inheritedSource(contact: Contact): DealLeadSource {
  return (DEAL_LEAD_SOURCES as readonly string[]).includes(contact.source)
    ? (contact.source as DealLeadSource)
    : 'OTHER';
}

const MOVE_ONLY =
  'cannot change here: move the deal with POST /admin/v1/organizations/{orgId}/deals/{dealId}/move';

/**
 * Changes some fields of a deal (not its stage: that is a move, with its events). `lostReason`
 * only on a LOST deal. Records `deal.updated` naming the fields sent.
 */
export async function updateDeal(
  db: Database,
  organizationId: string,
  dealId: string,
  body: UpdateDealBody,
): Promise<Deal> {
  return refusingRaces(() =>
    inOrganization(db, organizationId, async (tx) => {
      const current = await loadDeal(tx, organizationId, dealId, { lock: true });
      if (body.pipelineId !== undefined) throw Errors.invalidField('body.pipelineId', MOVE_ONLY);
      if (body.stageId !== undefined) throw Errors.invalidField('body.stageId', MOVE_ONLY);
      const changes: Partial<store.NewDeal> = {};
      if (body.title !== undefined) {
        changes.title = body.title.trim();
        if (changes.title.length === 0) throw Errors.invalidField('body.title', 'must not be blank');
      }
      if (body.contactId !== undefined)
        changes.contactId = (await requireContact(tx, organizationId, body.contactId)).id;
      await checkReferences(tx, organizationId, body);
      if (body.lostReason != null && current.deal.status !== 'LOST')
        throw Errors.invalidField('body.lostReason', 'only applies to a LOST deal');
      if (body.value !== undefined) changes.value = body.value;
      if (body.currency !== undefined) changes.currency = body.currency;
      if (body.agentId !== undefined) changes.agentId = body.agentId;
      if (body.propertyId !== undefined) changes.propertyId = body.propertyId;
      if (body.intent !== undefined) changes.intent = body.intent;
      if (body.leadSource !== undefined) changes.leadSource = body.leadSource;
      if (body.aiCreated !== undefined) changes.aiCreated = body.aiCreated;
      if (body.lostReason !== undefined) changes.lostReason = body.lostReason;
      if (body.saasPlanId !== undefined) changes.saasPlanId = body.saasPlanId;
      if (body.saasPlanName !== undefined) changes.saasPlanName = body.saasPlanName;
      if (body.saasBillingPeriod !== undefined) changes.saasBillingPeriod = body.saasBillingPeriod;
      if (body.saasMrrAmount !== undefined) changes.saasMrrAmount = body.saasMrrAmount;
      if (body.expectedCloseDate !== undefined)
        changes.expectedCloseDate = instantOrNull(body.expectedCloseDate, 'body.expectedCloseDate');
      if (body.trialStartedAt !== undefined)
        changes.trialStartedAt = instantOrNull(body.trialStartedAt, 'body.trialStartedAt');
      if (body.trialEndsAt !== undefined)
        changes.trialEndsAt = instantOrNull(body.trialEndsAt, 'body.trialEndsAt');
      checkTrial(
        changes.trialStartedAt !== undefined ? changes.trialStartedAt : current.deal.trialStartedAt,
        changes.trialEndsAt !== undefined ? changes.trialEndsAt : current.deal.trialEndsAt,
      );
      const row = await store.updateDeal(tx, organizationId, dealId, changes);
      if (!row) throw Errors.notFound('Deal', dealId);
      const deal = toDeal(row, current.stageName);
      await recordEvent(tx, {
        type: DealUpdated.type,
        data: { deal, changes: Object.keys(body).sort() },
        actor: OPERATOR,
      });
      return deal;
    }),
  );
}

/** Deletes a deal; records `deal.deleted` with the deal as it was. */
export async function deleteDeal(
  db: Database,
  organizationId: string,
  dealId: string,
): Promise<{ id: string; deleted: true }> {
  return inOrganization(db, organizationId, async (tx) => {
    const current = await loadDeal(tx, organizationId, dealId, { lock: true });
    const row = await store.deleteDeal(tx, organizationId, dealId);
    if (!row) throw Errors.notFound('Deal', dealId);
    await recordEvent(tx, {
      type: DealDeleted.type,
      data: { deal: toDeal(row, current.stageName) },
      actor: OPERATOR,
    });
    return { id: dealId, deleted: true as const };
  });
}

/**
 * Moves a deal to another stage of its pipeline, in one transaction: status from the stage's kind,
 * the stage's probability (WON 100, LOST 0), stageEnteredAt now, closedAt set on WON/LOST and
 * cleared on OPEN, lostReason kept only on LOST. Records `deal.stage_changed`, plus `deal.won` or
 * `deal.lost` on entering such a stage, each with the deal, its contact and the transition (actor
 * AUTOMATION when `automated`, else USER). Moving to the stage the deal is in changes nothing and
 * records nothing (automations may repeat themselves).
 */
export async function moveDeal(
  db: Database,
  organizationId: string,
  dealId: string,
  body: MoveDealBody,
): Promise<Deal> {
  return refusingRaces(() =>
    inOrganization(db, organizationId, async (tx) => {
      const current = await loadDeal(tx, organizationId, dealId, { lock: true });
      const target = await requireStage(tx, organizationId, body.stageId);
      if (target.pipelineId !== current.deal.pipelineId)
        throw Errors.invalidField(
          'body.stageId',
          `is not a stage of the deal's pipeline ${current.deal.pipelineId}: a deal moves within its pipeline`,
        );
      const lostReason = body.lostReason ?? null;
      if (lostReason !== null && target.kind !== 'LOST')
        throw Errors.invalidField('body.lostReason', 'only applies when moving into a LOST stage');
      if (target.id === current.deal.stageId) return toDeal(current.deal, current.stageName);

      const row = await store.moveDealToStage(tx, organizationId, dealId, {
        stageId: target.id,
        status: target.kind,
        probability: probabilityIn(target),
        closes: target.kind !== 'OPEN',
        lostReason: target.kind === 'LOST' ? lostReason : null,
      });
      if (!row) throw Errors.notFound('Deal', dealId);
      const deal = toDeal(row, target.name);
      const contact = await findContactInTx(tx, organizationId, row.contactId);
      if (!contact) throw Errors.internal(new Error(`deal ${dealId} has no contact ${row.contactId}`));
      const automated = body.automated ?? false;
      const data = {
        deal,
        contact,
        transition: {
          fromStageId: current.deal.stageId,
          fromStageName: current.stageName,
          toStageId: target.id,
          toStageName: target.name,
          pipelineId: row.pipelineId,
          lostReason: deal.lostReason,
          automated,
        },
      };
      const actor: Actor = { kind: automated ? 'AUTOMATION' : 'USER', userId: null };
      await recordEvent(tx, { type: DealStageChanged.type, data, actor });
      if (target.kind === 'WON') await recordEvent(tx, { type: DealWon.type, data, actor });
      if (target.kind === 'LOST') await recordEvent(tx, { type: DealLost.type, data, actor });
      return deal;
    }),
  );
}
