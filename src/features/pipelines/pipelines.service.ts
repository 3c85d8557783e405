import type { Database, Tx } from '../../db/database.ts';
import { databaseError } from '../../db/errors.ts';
import type { PipelineRow, PipelineStageRow } from '../../db/schema.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { pageMeta, pageRequest, type PageMeta } from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import type {
  CreatePipelineBody,
  Pipeline,
  StageChange,
  StageKind,
  UpdatePipelineBody,
} from './pipelines.schema.ts';
import * as store from './pipelines.store.ts';

const FOREIGN_KEY_VIOLATION = '23503';

/** The API view of a pipeline and its stages (already in position order). */
export function toPipeline(row: PipelineRow, stages: PipelineStageRow[]): Pipeline {
  return {
    id: row.id,
    name: row.name,
    isDefault: row.isDefault,
    stages: stages.map((stage) => ({
      id: stage.id,
      name: stage.name,
      kind: stage.kind,
      probability: stage.probability,
      position: stage.position,
    })),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function withStages(tx: Tx, organizationId: string, rows: PipelineRow[]): Promise<Pipeline[]> {
  const stages = await store.listStages(
    tx,
    organizationId,
    rows.map((row) => row.id),
  );
  return rows.map((row) =>
    toPipeline(
      row,
      stages.filter((stage) => stage.pipelineId === row.id),
    ),
  );
}

async function pipelinesPage(tx: Tx, organizationId: string, query: { page?: number; pageSize?: number }) {
  const page = pageRequest(query);
  const { items, total } = await store.listPipelines(tx, organizationId, page);
  return { data: await withStages(tx, organizationId, items), meta: pageMeta(total, page) };
}

/** The caller's organization's pipelines with their stages in order, the default first (v1, back office, MCP). */
export async function listPipelines(
  db: Database,
  caller: Caller,
  query: { page?: number; pageSize?: number } = {},
): Promise<{ data: Pipeline[]; meta: PageMeta }> {
  return readAs(db, caller, (tx) => pipelinesPage(tx, caller.organization.id, query));
}

async function loadPipeline(tx: Tx, organizationId: string, pipelineId: string): Promise<PipelineRow> {
  const row = isId(pipelineId, 'pl') ? await store.findPipelineById(tx, organizationId, pipelineId) : null;
  if (!row) throw Errors.notFound('Pipeline', pipelineId);
  return row;
}

async function pipelineView(tx: Tx, organizationId: string, row: PipelineRow): Promise<Pipeline> {
  return toPipeline(row, await store.listStages(tx, organizationId, [row.id]));
}

/** One pipeline of the caller's organization with its stages; 404 outside it. */
export async function getPipeline(db: Database, caller: Caller, pipelineId: string): Promise<Pipeline> {
  const organizationId = caller.organization.id;
  return readAs(db, caller, async (tx) =>
    pipelineView(tx, organizationId, await loadPipeline(tx, organizationId, pipelineId)),
  );
}

/** Win probability of a stage: WON 100, LOST 0, OPEN stages spread from 10 to 90 in their order. */
function defaultProbability(kind: StageKind, openIndex: number, openCount: number): number {
  if (kind === 'WON') return 100;
  if (kind === 'LOST') return 0;
  return openCount <= 1 ? 50 : Math.round(10 + (80 * openIndex) / (openCount - 1));
}

interface PlannedStage {
  id: string | undefined;
  name: string;
  kind: StageKind;
  /** Given in the body; undefined = the default (or the kept stage's own). */
  probability: number | undefined;
}

/**
 * Checks a stage list beyond the schema: names not blank and unique (case-insensitive), at least
 * one OPEN stage, WON stages at 100 and LOST ones at 0 (a deal's probability follows its stage).
 */
function checkStages(stages: PlannedStage[]): void {
  const seen = new Map<string, number>();
  stages.forEach((stage, index) => {
    const field = `body.stages[${index}]`;
    if (stage.name.length === 0) throw Errors.invalidField(`${field}.name`, 'must not be blank');
    const key = stage.name.toLowerCase();
    const twin = seen.get(key);
    if (twin !== undefined) throw Errors.invalidField(`${field}.name`, `repeats the name of stages[${twin}]`);
    seen.set(key, index);
    if (stage.kind === 'WON' && stage.probability !== undefined && stage.probability !== 100)
      throw Errors.invalidField(`${field}.probability`, 'must be 100 on a WON stage');
    if (stage.kind === 'LOST' && stage.probability !== undefined && stage.probability !== 0)
      throw Errors.invalidField(`${field}.probability`, 'must be 0 on a LOST stage');
  });
  if (!stages.some((stage) => stage.kind === 'OPEN'))
    throw Errors.invalidField('body.stages', 'needs at least one OPEN stage');
}

/** Probabilities for the planned list: the given one, else the kept stage's (same kind), else the default. */
function probabilities(stages: PlannedStage[], kept: Map<string, PipelineStageRow>): number[] {
  const openCount = stages.filter((stage) => stage.kind === 'OPEN').length;
  let openIndex = 0;
  return stages.map((stage) => {
    const index = stage.kind === 'OPEN' ? openIndex++ : 0;
    if (stage.probability !== undefined) return stage.probability;
    const current = stage.id === undefined ? undefined : kept.get(stage.id);
    if (current && current.kind === stage.kind) return current.probability;
    return defaultProbability(stage.kind, index, openCount);
  });
}

const planned = (stage: {
  id?: string;
  name: string;
  kind: StageKind;
  probability?: number;
}): PlannedStage => ({
  id: stage.id,
  name: stage.name.trim(),
  kind: stage.kind,
  probability: stage.probability,
});

/** Creates a pipeline with its stages; the organization's first pipeline is its default. */
export async function createPipeline(
  db: Database,
  caller: Caller,
  body: CreatePipelineBody,
): Promise<Pipeline> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    const stages = body.stages.map(planned);
    checkStages(stages);
    const name = body.name.trim();
    if (name.length === 0) throw Errors.invalidField('body.name', 'must not be blank');
    await store.lockPipelines(tx, organizationId);
    const first = (await store.countPipelines(tx, organizationId)) === 0;
    const isDefault = first || body.isDefault === true;
    const row = await store.insertPipeline(tx, { id: newId('pl'), organizationId, name, isDefault });
    if (isDefault) await store.clearDefault(tx, organizationId, row.id);
    const chances = probabilities(stages, new Map());
    await store.insertStages(
      tx,
      stages.map((stage, position) => ({
        id: newId('stg'),
        organizationId,
        pipelineId: row.id,
        name: stage.name,
        kind: stage.kind,
        probability: chances[position] as number,
        position,
      })),
    );
    return pipelineView(tx, organizationId, row);
  });
}

function stageHoldsDeals(stage: PipelineStageRow, deals: number, what: string) {
  return Errors.duplicate(`Stage "${stage.name}" (${stage.id}) holds ${deals} deal(s): ${what}`, {
    stageId: stage.id,
    dealCount: deals,
  });
}

/** A deal entered a stage while it was being removed: the foreign key refuses, we answer 409. */
async function refusingRacedDeals<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (databaseError(error)?.code === FOREIGN_KEY_VIOLATION)
      throw Errors.duplicate('Deals entered this pipeline or stage while it was being changed: retry');
    throw error;
  }
}

/**
 * Renames a pipeline, makes it the default, and/or replaces its stage list: stages with `id` are
 * kept (renamed, re-kinded, reordered), stages without are added, the others removed. A stage that
 * holds deals can be neither removed nor given another kind (409 naming the count): the deals'
 * status would no longer match their stage.
 */
export async function updatePipeline(
  db: Database,
  caller: Caller,
  pipelineId: string,
  body: UpdatePipelineBody,
): Promise<Pipeline> {
  const organizationId = caller.organization.id;
  return refusingRacedDeals(() =>
    writeAs(db, caller, async (tx) => {
      await store.lockPipelines(tx, organizationId);
      const current = await loadPipeline(tx, organizationId, pipelineId);
      const changes: { name?: string; isDefault?: boolean } = {};
      if (body.name !== undefined) {
        changes.name = body.name.trim();
        if (changes.name.length === 0) throw Errors.invalidField('body.name', 'must not be blank');
      }
      if (body.isDefault === false && current.isDefault)
        throw Errors.invalidField(
          'body.isDefault',
          'cannot be false on the default pipeline: make another pipeline the default instead',
        );
      if (body.isDefault === true) changes.isDefault = true;
      if (body.stages !== undefined) await replaceStages(tx, organizationId, pipelineId, body.stages);
      const row = await store.updatePipeline(tx, organizationId, pipelineId, changes);
      if (!row) throw Errors.notFound('Pipeline', pipelineId);
      if (changes.isDefault) await store.clearDefault(tx, organizationId, pipelineId);
      return pipelineView(tx, organizationId, row);
    }),
  );
}

async function replaceStages(tx: Tx, organizationId: string, pipelineId: string, given: StageChange[]) {
  const existing = await store.listStages(tx, organizationId, [pipelineId]);
  const byId = new Map(existing.map((stage) => [stage.id, stage]));
  const stages = given.map(planned);
  const seenIds = new Map<string, number>();
  stages.forEach((stage, index) => {
    if (stage.id === undefined) return;
    if (!byId.has(stage.id))
      throw Errors.invalidField(`body.stages[${index}].id`, 'is not a stage of this pipeline');
    const twin = seenIds.get(stage.id);
    if (twin !== undefined)
      throw Errors.invalidField(`body.stages[${index}].id`, `repeats stages[${twin}].id`);
    seenIds.set(stage.id, index);
  });
  checkStages(stages);

  const removed = existing.filter((stage) => !seenIds.has(stage.id));
  const rekinded = stages
    .map((stage) => (stage.id === undefined ? undefined : { stage: byId.get(stage.id), kind: stage.kind }))
    .filter((entry) => entry?.stage && entry.stage.kind !== entry.kind)
    .map((entry) => entry?.stage as PipelineStageRow);
  const held = await store.countDealsByStage(tx, organizationId, [
    ...removed.map((stage) => stage.id),
    ...rekinded.map((stage) => stage.id),
  ]);
  for (const stage of removed) {
    const deals = held.get(stage.id) ?? 0;
    if (deals > 0) throw stageHoldsDeals(stage, deals, 'move them to another stage before removing it');
  }
  for (const stage of rekinded) {
    const deals = held.get(stage.id) ?? 0;
    if (deals > 0) throw stageHoldsDeals(stage, deals, `its kind cannot change from ${stage.kind}`);
  }

  const chances = probabilities(stages, byId);
  await store.deleteStages(
    tx,
    organizationId,
    removed.map((stage) => stage.id),
  );
  const added: store.NewPipelineStage[] = [];
  for (const [position, stage] of stages.entries()) {
    const fields = { name: stage.name, kind: stage.kind, probability: chances[position] as number, position };
    if (stage.id === undefined) added.push({ id: newId('stg'), organizationId, pipelineId, ...fields });
    else await store.updateStage(tx, organizationId, stage.id, fields);
  }
  await store.insertStages(tx, added);
}

/**
 * Deletes a pipeline and its stages; 409 while it holds deals. When it was the default, the oldest
 * remaining pipeline becomes the default.
 */
export async function deletePipeline(
  db: Database,
  caller: Caller,
  pipelineId: string,
): Promise<{ id: string; deleted: true }> {
  const organizationId = caller.organization.id;
  return refusingRacedDeals(() =>
    writeAs(db, caller, async (tx) => {
      await store.lockPipelines(tx, organizationId);
      await loadPipeline(tx, organizationId, pipelineId);
      const deals = await store.countDealsInPipeline(tx, organizationId, pipelineId);
      if (deals > 0)
        throw Errors.duplicate(
          `Pipeline ${pipelineId} holds ${deals} deal(s): delete them before deleting the pipeline`,
          { dealCount: deals },
        );
      const row = await store.deletePipeline(tx, organizationId, pipelineId);
      if (!row) throw Errors.notFound('Pipeline', pipelineId);
      if (row.isDefault) await store.promoteOldestPipeline(tx, organizationId);
      return { id: pipelineId, deleted: true as const };
    }),
  );
}

/** A stage of the organization named by a deal body's `stageId`; a 400 naming it otherwise. */
export async function requireStage(
  tx: Tx,
  organizationId: string,
  stageId: string,
): Promise<PipelineStageRow> {
  const stage = isId(stageId, 'stg') ? await store.findStageById(tx, organizationId, stageId) : null;
  if (!stage)
    throw Errors.invalidField('body.stageId', 'does not name a pipeline stage of this organization');
  return stage;
}

/**
 * Where a new deal starts: the given stage (of the given pipeline, when both are sent), else the
 * first OPEN stage of the given pipeline, else of the organization's default pipeline.
 */
export async function placeOfNewDeal(
  tx: Tx,
  organizationId: string,
  body: { pipelineId?: string; stageId?: string },
): Promise<{ pipeline: PipelineRow; stage: PipelineStageRow }> {
  let pipeline: PipelineRow | null = null;
  if (body.pipelineId !== undefined) {
    pipeline = isId(body.pipelineId, 'pl')
      ? await store.findPipelineById(tx, organizationId, body.pipelineId)
      : null;
    if (!pipeline)
      throw Errors.invalidField('body.pipelineId', 'does not name a pipeline of this organization');
  }
  if (body.stageId !== undefined) {
    const stage = await requireStage(tx, organizationId, body.stageId);
    if (pipeline && stage.pipelineId !== pipeline.id)
      throw Errors.invalidField('body.stageId', `is not a stage of pipeline ${pipeline.id}`);
    pipeline ??= await store.findPipelineById(tx, organizationId, stage.pipelineId);
    if (!pipeline) throw Errors.internal(new Error(`stage ${stage.id} has no pipeline`));
    return { pipeline, stage };
  }
  pipeline ??= await store.findDefaultPipeline(tx, organizationId);
  if (!pipeline)
    throw Errors.invalidField('body.pipelineId', 'is required: the organization has no pipeline yet');
  const stages = await store.listStages(tx, organizationId, [pipeline.id]);
  const first = stages.find((stage) => stage.kind === 'OPEN');
  if (!first) throw Errors.internal(new Error(`pipeline ${pipeline.id} has no OPEN stage`));
  return { pipeline, stage: first };
}
