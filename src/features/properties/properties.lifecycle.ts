// A listing's lifecycle: which status may follow which (docs/decisions/0230-listing-lifecycle.md).
import { Errors } from '../../platform/errors/errors.ts';
import type { PropertyStatus, TransactionType } from './properties.schema.ts';

/**
 * The moves allowed from each status (staying put is always allowed). SOLD is final: a property sold
 * and put on sale again is a new listing. RENTED comes back to ACTIVE when the tenancy ends. INACTIVE
 * (withdrawn from the market) may be relisted or reworked as a draft.
 */
export const STATUS_MOVES: Readonly<Record<PropertyStatus, readonly PropertyStatus[]>> = {
  DRAFT: ['ACTIVE', 'INACTIVE'],
  ACTIVE: ['RESERVED', 'SOLD', 'RENTED', 'INACTIVE'],
  RESERVED: ['ACTIVE', 'SOLD', 'RENTED', 'INACTIVE'],
  SOLD: [],
  RENTED: ['ACTIVE', 'INACTIVE'],
  INACTIVE: ['ACTIVE', 'DRAFT'],
};

/** The transaction types a closing status needs: a property for rent is never SOLD. */
const CLOSING: Partial<Record<PropertyStatus, readonly TransactionType[]>> = {
  SOLD: ['SALE', 'SALE_OR_RENT'],
  RENTED: ['RENT', 'SALE_OR_RENT'],
};

/** 409 CONFLICT naming the status and its transaction type when a property of that type cannot have it. */
export function checkStatusFits(status: PropertyStatus, transactionType: TransactionType): void {
  const allowed = CLOSING[status];
  if (allowed && !allowed.includes(transactionType)) {
    throw Errors.conflict(
      `A ${transactionType} property cannot be ${status}: only ${allowed.join(' or ')} properties can`,
      { reason: 'STATUS_NOT_ALLOWED', status, transactionType },
    );
  }
}

/** 409 CONFLICT with the allowed next statuses when `from` may not move to `to`. */
export function checkStatusMove(from: PropertyStatus, to: PropertyStatus): void {
  if (from === to || STATUS_MOVES[from].includes(to)) return;
  const next = STATUS_MOVES[from];
  throw Errors.conflict(
    `A ${from} property cannot become ${to}: ${next.length === 0 ? `${from} is final` : `from ${from} it can become ${next.join(', ')}`}`,
    { reason: 'ILLEGAL_STATUS_MOVE', from, to, allowed: [...next] },
  );
}

/**
 * Why `to` cannot follow `from` for a property of `transactionType` (null when it can): the import's
 * row-by-row form of checkStatusMove and checkStatusFits (`from` null: a new property).
 */
export function statusProblem(
  from: PropertyStatus | null,
  to: PropertyStatus,
  transactionType: TransactionType,
): string | null {
  try {
    if (from !== null) checkStatusMove(from, to);
    checkStatusFits(to, transactionType);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
