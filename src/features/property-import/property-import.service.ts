import type { TSchema } from '@fastify/type-provider-typebox';
import { Compile } from 'typebox/compile';
import type { Validator } from 'typebox/compile';
import type { Database } from '../../db/database.ts';
import type { PropertyRow } from '../../db/schema.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { AppError } from '../../platform/errors/errors.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import type { ImportResult, ImportRowError } from './property-import.schema.ts';
import * as store from './property-import.store.ts';
import {
  type CreatePropertyBody,
  CreatePropertyBodySchema,
  eventProperty,
  type NewProperty,
  propertiesSchemas,
  propertyColumns,
  type PropertyColumns,
  PropertyCreated,
  type PropertyStatus,
  PropertyUpdated,
  recordPortalRemoval,
  recordPropertyChanges,
  statusProblem,
} from '../properties/index.ts';

/** At most this many error entries per row: a row of garbage must not flood the report. */
const MAX_ERRORS_PER_ROW = 10;

/**
 * The create body with its `$ref`s (`Coordinates#`, `PropertyPhoto#`) replaced by copies of the
 * named schemas: typebox resolves a `$ref` against its own context, not Fastify's shared schemas.
 */
function inlineRefs(schema: TSchema): TSchema {
  const named = new Map(propertiesSchemas.map((s) => [`${(s as { $id?: string }).$id}#`, s as TSchema]));
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') {
      const target = named.get(ref);
      if (!target) throw new Error(`unknown schema reference ${ref}`);
      return visit(target);
    }
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key]) => key !== '$id')
        .map(([key, value]) => [key, visit(value)]),
    );
  };
  return visit(schema) as TSchema;
}

let validator: Validator | undefined;
/** Compiled on first use (JIT: ~3 us per row), then shared. */
function rowValidator(): Validator {
  validator ??= Compile(inlineRefs(CreatePropertyBodySchema));
  return validator;
}

interface Issue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

/** `/photos/1/url` -> `photos[1].url`. */
function fieldOf(instancePath: string, child?: string): string {
  const segments = instancePath.split('/').filter(Boolean);
  if (child !== undefined) segments.push(child);
  return segments.reduce(
    (path, segment) =>
      /^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment,
    '',
  );
}

function messageOf(issue: Issue): string {
  const field = fieldOf(issue.instancePath);
  if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues))
    return `must be one of ${issue.params.allowedValues.join(', ')}`;
  if (issue.keyword === 'pattern' && field === 'code')
    return 'may hold only letters, digits and . _ / - and must start with a letter or digit';
  if (issue.keyword === 'pattern' && /^photos\[\d+\]\.url$/.test(field)) return 'must be an http(s) URL';
  return issue.message;
}

/**
 * Schema issues of one row as `[{field, message}]`. A nullable field's `anyOf` is folded into
 * one message: the deeper cause when there is one (`coordinates.latitude must be <= 90`),
 * else the accepted types (`must be string or null`).
 */
function schemaErrors(row: unknown): { field: string; message: string }[] {
  const issues = rowValidator().Errors(row) as unknown as Issue[];
  const anyOfPaths = new Set(issues.filter((i) => i.keyword === 'anyOf').map((i) => i.instancePath));
  const out: { field: string; message: string }[] = [];
  for (const path of anyOfPaths) {
    const related = issues.filter(
      (i) => i.keyword !== 'anyOf' && (i.instancePath === path || i.instancePath.startsWith(`${path}/`)),
    );
    const causes = related.filter((i) => !(i.keyword === 'type' && i.instancePath === path));
    if (causes.length === 0) {
      const types = related.map((i) => String(i.params.type));
      out.push({ field: fieldOf(path), message: `must be ${[...new Set(types)].join(' or ')}` });
    }
  }
  for (const issue of issues) {
    const underAnyOf = [...anyOfPaths].some(
      (path) => issue.instancePath === path || issue.instancePath.startsWith(`${path}/`),
    );
    if (issue.keyword === 'anyOf' || issue.keyword === 'boolean') continue;
    if (underAnyOf && issue.keyword === 'type' && anyOfPaths.has(issue.instancePath)) continue;
    if (issue.keyword === 'required' && Array.isArray(issue.params.requiredProperties)) {
      for (const name of issue.params.requiredProperties as string[])
        out.push({ field: fieldOf(issue.instancePath, name), message: 'is required' });
    } else if (issue.keyword === 'additionalProperties' && Array.isArray(issue.params.additionalProperties)) {
      for (const name of issue.params.additionalProperties as string[])
        out.push({ field: fieldOf(issue.instancePath, name), message: 'is not allowed' });
    } else {
      out.push({ field: fieldOf(issue.instancePath), message: messageOf(issue) });
    }
  }
  const seen = new Set<string>();
  return out.filter((e) => {
    const id = `${e.field}\u0001${e.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

// Derived columns follow from these; coordinates are two columns but one field.
const COMPARED: (keyof PropertyColumns)[] = [
  'code',
  'title',
  'description',
  'transactionType',
  'type',
  'status',
  'publishedOnPortal',
  'featured',
  'price',
  'currency',
  'city',
  'neighborhood',
  'address',
  'zipCode',
  'latitude',
  'longitude',
  'approximateLocation',
  'addressVisibility',
  'coordinatePrecision',
  'translations',
  'bedrooms',
  'bathrooms',
  'area',
  'amenities',
  'photos',
  'agentId',
  'internalNotes',
  'customFields',
];
const FIELD_OF_COLUMN: Partial<Record<keyof PropertyColumns, string>> = {
  latitude: 'coordinates',
  longitude: 'coordinates',
};

/** Every writable field name: the `changes` of a row a parallel writer created since our read. */
const COMPARED_FIELDS = [...new Set(COMPARED.map((c) => FIELD_OF_COLUMN[c] ?? c))].sort();

/** JSON with sorted keys: jsonb reorders object keys, so plain JSON.stringify would see false changes. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  // numeric(…, 2) columns store 2 decimals: 10.005 sent twice must not count as a change twice.
  if (typeof value === 'number') return String(Math.round(value * 100) / 100);
  return JSON.stringify(value ?? null);
}

/** The writable fields whose stored value differs from the row's, sorted. */
function changedFields(current: PropertyRow, next: PropertyColumns): string[] {
  const changed = new Set<string>();
  for (const column of COMPARED) {
    // Coordinates are double precision: compared exactly, not at the 2 decimals of money columns.
    const same =
      column === 'latitude' || column === 'longitude'
        ? current[column] === next[column]
        : canonical(current[column]) === canonical(next[column]);
    if (!same) changed.add(FIELD_OF_COLUMN[column] ?? column);
  }
  return [...changed].sort();
}

/**
 * Bulk upsert by `code` (back office and `agency-crm import properties`): every row is checked on
 * its own (schema, agent of the organization, code not repeated in the batch) and fails alone with
 * its index and field; the good ones are created, replaced, or left alone when identical, in one
 * statement and one transaction with a `property.created`/`property.updated` event each, recorded
 * as the caller's (the operator's: SYSTEM).
 */
export async function importProperties(
  db: Database,
  caller: Caller,
  rows: readonly unknown[],
  options: { dryRun?: boolean } = {},
): Promise<ImportResult> {
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  const dryRun = options.dryRun ?? false;
  const errors: ImportRowError[] = [];
  const failedRows = new Set<number>();
  const fail = (index: number, field: string, message: string) => {
    failedRows.add(index);
    const row = rows[index] as { code?: unknown } | null;
    const code = row !== null && typeof row === 'object' && typeof row.code === 'string' ? row.code : null;
    errors.push({ index, code, field, message });
  };

  const valid: { index: number; body: CreatePropertyBody }[] = [];
  const firstIndexOfCode = new Map<string, number>();
  rows.forEach((row, index) => {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      fail(index, '', 'must be an object');
      return;
    }
    if (!rowValidator().Check(row)) {
      for (const error of schemaErrors(row).slice(0, MAX_ERRORS_PER_ROW))
        fail(index, error.field, error.message);
      return;
    }
    const body = row as CreatePropertyBody;
    const first = firstIndexOfCode.get(body.code);
    if (first !== undefined) {
      fail(index, 'code', `repeats the code of row ${first} of this batch`);
      return;
    }
    firstIndexOfCode.set(body.code, index);
    valid.push({ index, body });
  });

  const counts = await writeAs(db, caller, async (tx, organization) => {
    const agentIds = [
      ...new Set(valid.map((v) => v.body.agentId).filter((id): id is string => typeof id === 'string')),
    ];
    const knownAgents = await store.findAgentIds(
      tx,
      organizationId,
      agentIds.filter((id) => isId(id, 'agt')),
    );
    const good = valid.filter(({ index, body }) => {
      if (typeof body.agentId === 'string' && !knownAgents.has(body.agentId)) {
        fail(index, 'agentId', 'does not name an agent of this organization');
        return false;
      }
      return true;
    });

    const existing = new Map(
      (
        await store.findPropertiesByCodes(
          tx,
          organizationId,
          good.map((g) => g.body.code),
        )
      ).map((row) => [row.code, row]),
    );
    const writes: NewProperty[] = [];
    const changes = new Map<string, string[]>();
    let unchanged = 0;
    for (const { index, body } of good) {
      let columns: PropertyColumns;
      try {
        columns = propertyColumns(body, organization);
      } catch (error) {
        // A row's own contradiction (approximateLocation vs addressVisibility, a translation in the
        // default language): that row's error, not the file's.
        const detail = error instanceof AppError ? error.details?.[0] : undefined;
        if (detail === undefined) throw error;
        fail(index, detail.field.replace(/^body\./, ''), detail.message);
        continue;
      }
      const current = existing.get(body.code);
      const problem = statusProblem(
        current?.status ?? null,
        columns.status as PropertyStatus,
        body.transactionType,
      );
      if (problem !== null) {
        fail(index, 'status', problem);
        continue;
      }
      if (current) {
        const changed = changedFields(current, columns);
        if (changed.length === 0) {
          unchanged += 1;
          continue;
        }
        changes.set(body.code, changed);
      }
      writes.push({ id: current?.id ?? newId('prop'), organizationId, ...columns });
    }
    if (dryRun) {
      const updated = changes.size;
      return { created: writes.length - updated, updated, unchanged };
    }

    // Code order, like the locks taken above: overlapping imports queue instead of deadlocking.
    writes.sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    const written = await store.upsertProperties(tx, writes);
    let created = 0;
    // One event per row, in the same transaction: webhook consumers sync listings row by row.
    for (const { inserted, ...row } of written) {
      if (inserted) created += 1;
      await recordEvent(
        tx,
        inserted
          ? { type: PropertyCreated.type, data: { property: eventProperty(row) }, actor }
          : {
              type: PropertyUpdated.type,
              data: { property: eventProperty(row), changes: changes.get(row.code) ?? COMPARED_FIELDS },
              actor,
            },
      );
      const before = existing.get(row.code);
      await recordPropertyChanges(tx, inserted ? null : (before ?? null), row, actor);
      if (!inserted && before) await recordPortalRemoval(tx, before, row, actor);
    }
    return { created, updated: written.length - created, unchanged };
  });

  errors.sort((a, b) => a.index - b.index);
  return { received: rows.length, ...counts, failed: failedRows.size, dryRun, errors };
}
