import type { Database, Tx } from '../../db/database.ts';
import { parseDateOrDateTime } from '../../platform/http/dates.ts';
import { databaseError } from '../../db/errors.ts';
import type { DealRow, PipelineStageRow } from '../../db/schema.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { tombstoneOf } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { nextCode } from '../../platform/ids/codes.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { type Contact, findContactInTx } from '../contacts/index.ts';
import { placeOfNewDeal, requireStage } from '../pipelines/index.ts';
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
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
  type DealLeadSource,
  type MoveDealBody,
  type UpdateDealBody,
} from './deals.schema.ts';
import * as store from './deals.store.ts';
import { isPropertyOf } from '../properties/index.ts';
import { isAgentOf } from '../agents/index.ts';

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
    status: row.status,
    intent: row.intent,
    leadSource: row.leadSource,
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
    saasBillingPeriod: row.saasBillingPeriod,
    saasMrrAmount: row.saasMrrAmount,
    trialStartedAt: iso(row.trialStartedAt),
    trialEndsAt: iso(row.trialEndsAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const instantOrNull = (value: string | null | undefined, field: string) =>
  value === null || value === undefined ? null : parseDateOrDateTime(value, field);

export async function loadDeal(
  tx: Tx,
  organizationId: string,
  dealId: string,
  options: { lock?: boolean } = {},
): Promise<store.DealWithStage> {
  const found = isId(dealId, 'deal') ? await store.findDealById(tx, organizationId, dealId, options) : null;
  if (!found) throw Errors.notFound('Deal', dealId);
  return found;
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
 * Creates a deal with the next `DL-` code, recorded as the caller's: its status and probability follow
 * the stage's kind, closedAt is set when it starts WON or LOST. The contact, agent, property and stage
 * must be the organization's (400 naming the field).
 */
export async function createDeal(db: Database, caller: Caller, body: CreateDealBody): Promise<Deal> {
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  return refusingRaces(() =>
    writeAs(db, caller, async (tx, organization) => {
      const title = body.title.trim();
      if (title.length === 0) throw Errors.invalidField('body.title', 'must not be blank');
      const contact = await requireContact(tx, organizationId, body.contactId);
      const { pipeline, stage } = await placeOfNewDeal(tx, organizationId, body);
      await checkReferences(tx, organizationId, body);
      if (body.lostReason != null && stage.kind !== 'LOST')
        throw Errors.invalidField('body.lostReason', 'only applies to a deal in a LOST stage');
      const trialStartedAt = instantOrNull(body.trialStartedAt, 'body.trialStartedAt');
      const trialEndsAt = instantOrNull(body.trialEndsAt, 'body.trialEndsAt');
      checkTrial(trialStartedAt, trialEndsAt);
      const code = await nextCode(tx, organizationId, 'deal', 'DL');
      const row = await store.insertDeal(
        tx,
        {
          id: newId('deal'),
          organizationId,
          code,
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
      await recordEvent(tx, { type: DealCreated.type, data: { deal }, actor });
      return deal;
    }),
  );
}

/** A deal's default lead source is its contact's source (the two value sets are the same). */
function inheritedSource(contact: Contact): DealLeadSource {
  return (DEAL_LEAD_SOURCES as readonly string[]).includes(contact.source) ? contact.source : 'OTHER';
}

/**
 * Changes some fields of a deal (not its stage: that is a move, with its events). `lostReason`
 * only on a LOST deal. Records `deal.updated` naming the fields sent, as the caller's.
 */
export async function updateDeal(
  db: Database,
  caller: Caller,
  dealId: string,
  body: UpdateDealBody,
): Promise<Deal> {
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  return refusingRaces(() =>
    writeAs(db, caller, async (tx) => {
      const current = await loadDeal(tx, organizationId, dealId, { lock: true });
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
        actor,
      });
      return deal;
    }),
  );
}

/** Deletes a deal; records `deal.deleted` (a tombstone) as the caller's. */
export async function deleteDeal(
  db: Database,
  caller: Caller,
  dealId: string,
): Promise<{ id: string; deleted: true }> {
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  return writeAs(db, caller, async (tx) => {
    await loadDeal(tx, organizationId, dealId, { lock: true });
    const row = await store.deleteDeal(tx, organizationId, dealId);
    if (!row) throw Errors.notFound('Deal', dealId);
    await recordEvent(tx, { type: DealDeleted.type, data: { deal: tombstoneOf(row.id) }, actor });
    return { id: dealId, deleted: true as const };
  });
}

/**
 * Who a move is recorded as: the caller. The back office's rule differs: the operator moves a deal on
 * someone's behalf, a person (USER) or an automation (`automated`), and the move names them.
 */
function moverOf(caller: Caller, automated: boolean): Actor {
  if (caller.credential !== 'operator') return actorOf(caller);
  return { kind: automated ? 'AUTOMATION' : 'USER', userId: null };
}

/**
 * Moves a deal to another stage of its pipeline, in one transaction: status from the stage's kind,
 * the stage's probability (WON 100, LOST 0), stageEnteredAt now, closedAt set on WON/LOST and
 * cleared on OPEN, lostReason kept only on LOST. Keeps the move in deal_stage_changes (the
 * timeline's DEAL_MOVE) and records `deal.stage_changed`, plus `deal.won` or
 * `deal.lost` on entering such a stage, each with the deal, its contact and the transition (actor:
 * `moverOf`). Moving to the stage the deal is in changes nothing and records nothing (automations
 * may repeat themselves).
 */
export async function moveDeal(
  db: Database,
  caller: Caller,
  dealId: string,
  body: MoveDealBody,
): Promise<Deal> {
  const organizationId = caller.organization.id;
  return refusingRaces(() =>
    writeAs(db, caller, async (tx) => {
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
      // The back office's rule differs: its move takes `lostReason` as optional even into a LOST
      // stage (MoveDealBody); every other caller must say why a deal was lost.
      const reasonRequired = caller.credential !== 'operator';
      if (reasonRequired && target.kind === 'LOST' && (lostReason === null || lostReason.trim() === ''))
        throw Errors.invalidField('body.lostReason', 'is required when moving into a LOST stage');
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
      // No contact once that person was erased: the move still happens, with `contact: null`.
      const contact = row.contactId ? await findContactInTx(tx, organizationId, row.contactId) : null;
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
      const actor = moverOf(caller, automated);
      // The history row rides in the move's transaction: no move without its row, no row without a move.
      await store.insertDealStageChange(tx, {
        id: newId('dsc'),
        organizationId,
        dealId: row.id,
        pipelineId: row.pipelineId,
        fromStageId: current.deal.stageId,
        fromStageName: current.stageName,
        toStageId: target.id,
        toStageName: target.name,
        status: row.status,
        lostReason: row.lostReason,
        automated,
        actorKind: actor.kind,
      });
      await recordEvent(tx, { type: DealStageChanged.type, data, actor });
      if (target.kind === 'WON') await recordEvent(tx, { type: DealWon.type, data, actor });
      if (target.kind === 'LOST') await recordEvent(tx, { type: DealLost.type, data, actor });
      return deal;
    }),
  );
}
