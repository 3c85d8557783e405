// `$skiptoken`: where a replication walk stands (the last record's ModificationTimestamp to the
// microsecond and its ListingKey), opaque to clients and sealed to the organization, filter and order
// it was issued for, as the list cursors of decision 0190 are.
import { createHash } from 'node:crypto';
import { Errors } from '../../platform/errors/errors.ts';
import type { Filter } from './reso.filter.ts';
import type { Order } from './reso.odata.ts';

/** The last record of a page: its `updated_at` as UTC µs text and its id. */
export interface Position {
  updatedAt: string;
  id: string;
}

const VERSION = 'r1';
const hash = (text: string) => createHash('sha256').update(text).digest('base64url');

/** What a token is valid for: this organization, this filter (as parsed) and this order. */
export function sealOf(organizationId: string, filter: Filter | null, order: Order): string {
  return hash(JSON.stringify([organizationId, filter, order]));
}

const checkOf = (seal: string, position: Position) =>
  hash(`${seal}|${position.updatedAt}|${position.id}`).slice(0, 16);

/** The `$skiptoken` of the page after `position`. */
export function issueSkiptoken(position: Position, seal: string): string {
  const text = [VERSION, position.updatedAt, position.id, checkOf(seal, position)].join('|');
  return Buffer.from(text).toString('base64url');
}

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ID = /^[A-Za-z0-9_]{1,64}$/;

/**
 * The position a `$skiptoken` holds; a 400 naming `query.$skiptoken` when it is not one this service
 * issued, or was issued for another organization, `$filter` or `$orderby`.
 */
export function openSkiptoken(token: string, seal: string): Position {
  const text = Buffer.from(token, 'base64url').toString('latin1');
  const [version, updatedAt = '', id = '', check, ...rest] = text.split('|');
  if (
    // Base64 decoding skips what it cannot read: only the exact text of a token is one.
    Buffer.from(text, 'latin1').toString('base64url') !== token ||
    version !== VERSION ||
    rest.length > 0 ||
    !TIME.test(updatedAt) ||
    Number.isNaN(Date.parse(updatedAt)) ||
    !ID.test(id)
  ) {
    throw Errors.invalidField(
      'query.$skiptoken',
      'is malformed: follow @odata.nextLink as received (the token is opaque)',
    );
  }
  if (check !== checkOf(seal, { updatedAt, id })) {
    throw Errors.invalidField(
      'query.$skiptoken',
      'was not issued for this $filter and $orderby: follow @odata.nextLink as received',
    );
  }
  return { updatedAt, id };
}
