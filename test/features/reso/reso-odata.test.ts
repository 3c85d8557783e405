/** The OData grammar of the RESO resource, without a database: what parses to what, and what never does. */
import { describe, expect, it } from 'vitest';
import { parseFilter, type Filter } from '../../../src/features/reso/reso.filter.ts';
import { instantOf, parseOrderBy, parseSelect } from '../../../src/features/reso/reso.odata.ts';
import { issueSkiptoken, openSkiptoken, sealOf } from '../../../src/features/reso/reso.skiptoken.ts';
import { AppError } from '../../../src/platform/errors/errors.ts';

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a 400');
}

describe('instantOf', () => {
  it('reads OData DateTimeOffset literals as UTC text to the microsecond', () => {
    expect(instantOf('2026-01-01T00:00:00Z')).toBe('2026-01-01T00:00:00.000000Z');
    expect(instantOf('2026-01-01T00:00Z')).toBe('2026-01-01T00:00:00.000000Z');
    expect(instantOf('2026-01-01T01:30:00.1234567+01:30')).toBe('2026-01-01T00:00:00.123456Z');
    expect(instantOf('2025-12-31T23:00:00-01:00')).toBe('2026-01-01T00:00:00.000000Z');
    expect(instantOf('0050-06-01T00:00:00Z')).toBe('0050-06-01T00:00:00.000000Z');
    expect(instantOf('2024-02-29T12:00:00z')).toBe('2024-02-29T12:00:00.000000Z');
  });

  it('refuses what is no instant', () => {
    for (const text of [
      '2026-01-01',
      '2026-01-01T00:00:00',
      '2025-02-29T00:00:00Z',
      '2026-01-01T23:60:00Z',
      '2026-01-01T00:00:60Z',
      '2026-01-01T00:00:00+24:00',
      '9999-12-31T23:00:00-02:00',
      '0001-01-01T00:30:00+01:00',
      '2026-1-01T00:00:00Z',
    ]) {
      expect(instantOf(text), text).toBeNull();
    }
  });
});

describe('parseFilter', () => {
  const modified = (op: string, instant: string): Filter =>
    ({
      kind: 'compare',
      field: 'ModificationTimestamp',
      op,
      value: { type: 'instant', value: instant },
    }) as Filter;
  const status = (op: string, value: string): Filter =>
    ({ kind: 'compare', field: 'StandardStatus', op, value: { type: 'string', value } }) as Filter;

  it('binds not before and before or, and types each literal by its field', () => {
    expect(
      parseFilter(
        "ModificationTimestamp ge 2026-01-01T00:00:00Z and not (StandardStatus eq 'Closed') or StandardStatus in ('Active','Pending')",
      ),
    ).toEqual({
      kind: 'or',
      left: {
        kind: 'and',
        left: modified('ge', '2026-01-01T00:00:00.000000Z'),
        right: { kind: 'not', operand: status('eq', 'Closed') },
      },
      right: {
        kind: 'in',
        field: 'StandardStatus',
        values: [
          { type: 'string', value: 'Active' },
          { type: 'string', value: 'Pending' },
        ],
      },
    });
    expect(parseFilter('BedroomsTotal gt 1 and ListPrice le 1234567.89')).toEqual({
      kind: 'and',
      left: { kind: 'compare', field: 'BedroomsTotal', op: 'gt', value: { type: 'number', value: '1' } },
      right: {
        kind: 'compare',
        field: 'ListPrice',
        op: 'le',
        value: { type: 'number', value: '1234567.89' },
      },
    });
    expect(parseFilter('ModificationTimestamp lt now()')).toMatchObject({ value: { type: 'now' } });
    expect(parseFilter('date(OriginalEntryTimestamp) eq 2019-12-31')).toMatchObject({
      onDate: true,
      value: { type: 'date', value: '2019-12-31' },
    });
    // RESO Web API Core 2.0.0's enum forms: `has` and Namespace.Lookup'Member' name the same value.
    expect(
      parseFilter("StandardStatus has org.reso.metadata.enums.StandardStatus'ActiveUnderContract'"),
    ).toEqual(status('eq', 'Active Under Contract'));
    expect(parseFilter('PostalCode eq null')).toMatchObject({ value: { type: 'null' } });
    expect(parseFilter("contains(City,'ag')")).toEqual({
      kind: 'text',
      fn: 'contains',
      field: 'City',
      value: 'ag',
    });
    expect(parseFilter('InternetEntireListingDisplayYN eq true')).toMatchObject({
      value: { type: 'boolean', value: true },
    });
  });

  it('reads doubled quotes inside a string, and refuses everything outside the grammar with the same help', () => {
    const quoted = refusal(() => parseFilter("StandardStatus eq 'It''s'"));
    expect(quoted.message).toContain("found 'It's'");
    for (const text of [
      'ModificationTimestamp',
      'ModificationTimestamp gt',
      'ModificationTimestamp gt 2026-01-01T00:00:00Z and',
      "StandardStatus eq 'Active' StandardStatus eq 'Active'",
      'StandardStatus in ()',
      "StandardStatus in ('Active',)",
      "StandardStatus in 'Active'",
      'Media/any(m: m/Order eq 1)',
      'true',
      "not(StandardStatus eq 'Active'",
      ')',
      "StandardStatus eq 'Active' and (ModificationTimestamp gt 2026-01-01T00:00:00Z))",
      Array.from({ length: 51 }, () => "StandardStatus eq 'Active'").join(' or '),
      "BedroomsTotal eq 'three'",
      "City gt 'A'",
      'InternetEntireListingDisplayYN gt true',
      "City has org.reso.metadata.enums.City'X'",
      "StandardStatus eq org.reso.metadata.enums.StandardStatus'Sold'",
      "contains(BedroomsTotal,'1')",
      'length(City) gt 1',
      'ModificationTimestamp gt 2026-01-01',
      'date(City) eq 2026-01-01',
      'ListPrice gt null',
    ]) {
      const error = refusal(() => parseFilter(text));
      expect(error.statusCode, text).toBe(400);
      expect(error.details?.[0]?.field, text).toBe('query.$filter');
      expect(error.message, text).toContain('supported: any field of Property but Media');
    }
  });
});

describe('parseOrderBy and parseSelect', () => {
  it('takes the orders a keyset walks, and nothing else', () => {
    expect(parseOrderBy('ModificationTimestamp')).toEqual({ by: 'ModificationTimestamp', direction: 'asc' });
    expect(parseOrderBy(' ModificationTimestamp  desc , ListingKey desc ')).toEqual({
      by: 'ModificationTimestamp',
      direction: 'desc',
    });
    expect(parseOrderBy('ListingKey desc')).toEqual({ by: 'ListingKey', direction: 'desc' });
    for (const text of [
      '',
      'ListingKey asc,ModificationTimestamp asc',
      'ModificationTimestamp ASC',
      'City',
      ',',
    ]) {
      expect(refusal(() => parseOrderBy(text)).details?.[0]?.field, text).toBe('query.$orderby');
    }
  });

  it('selects known fields in record order, * for all', () => {
    expect(parseSelect('*')).toBeNull();
    expect(parseSelect('Media, ListingKey,ListingKey')).toEqual(['ListingKey', 'Media']);
    for (const text of ['', 'listingkey', '*,ListingKey', 'ListingKey,,City']) {
      expect(refusal(() => parseSelect(text)).details?.[0]?.field, text).toBe('query.$select');
    }
  });
});

describe('$skiptoken', () => {
  it('opens only with the seal it was issued for, and only as issued', () => {
    const seal = sealOf('org_1', null, { by: 'ModificationTimestamp', direction: 'asc' });
    const position = { updatedAt: '2026-01-01T00:00:00.000001Z', id: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uE' };
    const token = issueSkiptoken(position, seal);
    expect(openSkiptoken(token, seal)).toEqual(position);
    const otherOrder = sealOf('org_1', null, { by: 'ModificationTimestamp', direction: 'desc' });
    expect(refusal(() => openSkiptoken(token, otherOrder)).message).toContain('was not issued');
    expect(
      refusal(() => openSkiptoken(sealOf('org_2', null, { by: 'ListingKey', direction: 'asc' }), seal))
        .message,
    ).toContain('malformed');
    expect(refusal(() => openSkiptoken(`${token}A`, seal)).details?.[0]?.field).toBe('query.$skiptoken');
  });
});
