// RESO Web API's Property resource over the agency's listings (docs/reso.md, decision 0234): every
// status, exact location, in RESO Data Dictionary 2.0 names, with the OData options replication uses.
import { COUNT_LIMIT, type Database } from '../../db/database.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { readAs } from '../../platform/tenancy/caller-tx.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { isId } from '../../platform/ids/ids.ts';
import type { ResoMediaList } from './reso.documents.schema.ts';
import { isDeleted, resoRecordOf } from './reso.deletions.ts';
import { mediaOf, selectFields, type ResoField } from './reso.mapping.ts';
import { SERVICE_ROOT } from './reso.metadata.ts';
import { parseFilter } from './reso.filter.ts';
import { DEFAULT_ORDER, parseExpand, parseOrderBy, parseSelect } from './reso.odata.ts';
import {
  DEFAULT_TOP,
  type ResoGetQuery,
  type ResoListQuery,
  type ResoPropertyEntity,
  type ResoPropertyList,
} from './reso.schema.ts';
import { issueSkiptoken, openSkiptoken, sealOf } from './reso.skiptoken.ts';
import * as store from './reso.store.ts';

/** `<origin>/v1/reso/$metadata#Property`, with the selected fields as OData writes them. */
function contextOf(origin: string, select: readonly ResoField[] | null, suffix = ''): string {
  const fields = select === null ? '' : `(${select.join(',')})`;
  return `${origin}${SERVICE_ROOT}/$metadata#Property${fields}${suffix}`;
}

/**
 * `$select` with `$expand=Media`: the selected fields and Media (every record carries Media unless
 * `$select` leaves it out, so `$expand` only matters beside a `$select`).
 */
function selectionOf(query: { $select?: string; $expand?: string }): ResoField[] | null {
  const select = query.$select === undefined ? null : parseSelect(query.$select);
  const expand = query.$expand === undefined ? false : parseExpand(query.$expand);
  if (select === null || !expand || select.includes('Media')) return select;
  return [...select, 'Media'];
}

/** The query of the next page: the same options, `$skiptoken` in place of `$skip`. */
function nextLinkOf(origin: string, query: ResoListQuery, skiptoken: string): string {
  const kept = (['$filter', '$select', '$expand', '$orderby', '$top', '$count'] as const)
    .filter((name) => query[name] !== undefined)
    .map((name) => `${name}=${encodeURIComponent(String(query[name]))}`);
  return `${origin}${SERVICE_ROOT}/Property?${[...kept, `$skiptoken=${skiptoken}`].join('&')}`;
}

/**
 * GET /v1/reso/Property: one page of the organization's listings, ModificationTimestamp then
 * ListingKey ascending unless `$orderby` says otherwise, with `@odata.nextLink` when more follow.
 * `origin` is where links point (PUBLIC_URL, or the address the request came to).
 */
export async function listResoProperties(
  db: Database,
  caller: Caller,
  query: ResoListQuery,
  origin: string,
): Promise<ResoPropertyList> {
  const organizationId = caller.organization.id;
  const filter = query.$filter === undefined ? null : parseFilter(query.$filter);
  const order = query.$orderby === undefined ? DEFAULT_ORDER : parseOrderBy(query.$orderby);
  const select = selectionOf(query);
  const seal = sealOf(organizationId, filter, order);
  if (query.$skiptoken !== undefined && query.$skip !== undefined) {
    throw Errors.invalidField('query.$skip', 'cannot be combined with $skiptoken: follow @odata.nextLink');
  }
  const after = query.$skiptoken === undefined ? undefined : openSkiptoken(query.$skiptoken, seal);
  const top = query.$top ?? DEFAULT_TOP;
  const count = query.$count === true;
  const { rows, total } = await readAs(db, caller, (tx) =>
    store.listResoRows(tx, organizationId, {
      filter,
      order,
      after,
      offset: query.$skip ?? 0,
      limit: top === 0 ? 0 : top + 1,
      count,
    }),
  );
  const page = rows.slice(0, top);
  const last = page.at(-1);
  return {
    '@odata.context': contextOf(origin, select),
    ...(total === null ? {} : { '@odata.count': Math.min(total, COUNT_LIMIT) }),
    ...(total !== null && total > COUNT_LIMIT ? { '@agencyCrm.countIsLowerBound': true as const } : {}),
    value: page.map((row) => selectFields(resoRecordOf(row), select)),
    ...(rows.length > top && last
      ? {
          '@odata.nextLink': nextLinkOf(
            origin,
            query,
            issueSkiptoken({ updatedAt: last.updatedAt, id: last.id }, seal),
          ),
        }
      : {}),
  };
}

/**
 * GET /v1/reso/Property('{ListingKey}'): one listing, or the Delete record of a deleted one (what the
 * walk shows under that key); 404 when unknown or another organization's.
 */
export async function getResoProperty(
  db: Database,
  caller: Caller,
  listingKey: string,
  query: ResoGetQuery,
  origin: string,
): Promise<ResoPropertyEntity> {
  const select = selectionOf(query);
  const row = isId(listingKey, 'prop')
    ? await readAs(db, caller, (tx) => store.findResoRow(tx, caller.organization.id, listingKey))
    : null;
  if (!row) throw Errors.notFound('Property', listingKey);
  return {
    '@odata.context': contextOf(origin, select, '/$entity'),
    ...selectFields(resoRecordOf(row), select),
  };
}

/**
 * GET /v1/reso/Property('{ListingKey}')/Media: its photos as Media records (none for a deleted listing);
 * 404 as for the record.
 */
export async function getResoMedia(
  db: Database,
  caller: Caller,
  listingKey: string,
  origin: string,
): Promise<ResoMediaList> {
  const row = isId(listingKey, 'prop')
    ? await readAs(db, caller, (tx) => store.findResoRow(tx, caller.organization.id, listingKey))
    : null;
  if (!row) throw Errors.notFound('Property', listingKey);
  const key = `'${listingKey.replaceAll("'", "''")}'`;
  return {
    '@odata.context': `${origin}${SERVICE_ROOT}/$metadata#Property(${key})/Media`,
    value: isDeleted(row) ? [] : mediaOf(row),
  };
}
