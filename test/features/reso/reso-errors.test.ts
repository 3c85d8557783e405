/**
 * RESO Property resource: every option, field, operator and value it does not take is a 400 in the
 * error envelope naming the option and what it supports (never a 500); keys and scopes as the
 * listing API's; another agency's listings never appear and their keys are a 404.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { createListing, resoPage } from './support.ts';

let app: FastifyInstance;
let agency: SpanishAgency;
let other: SpanishAgency;
let listing: { id: string };
let theirs: { id: string };

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  other = await createTenant(app, SPANISH_AGENCY);
  listing = await createListing(app, agency);
  await createListing(app, agency);
  theirs = await createListing(app, other, { city: 'Elsewhere' });
});

afterAll(async () => {
  await app.close();
});

/** GET with a raw query string: a 400 whose field is `field` and whose message contains `words`. */
async function expectBad(query: string, field: string, ...words: string[]) {
  const response = await api(app, 'GET', `/v1/reso/Property?${query}`, { key: agency.secret.key });
  const error = expectError(response, 400, 'VALIDATION_ERROR') as ReturnType<typeof expectError> & {
    target?: string;
    details?: { target: string; code: string }[];
  };
  // OData's error format: the option at fault as `target`, details as {code, target, message}.
  const target = field.replace(/^query\./, '');
  expect(error.target, response.body).toBe(target);
  expect(error.details?.[0], response.body).toMatchObject({ code: 'VALIDATION_ERROR', target });
  expect(response.headers['odata-version']).toBe('4.0');
  expect(error.message, response.body).toContain(field);
  for (const word of words) expect(error.message, response.body).toContain(word);
}

const q = (value: string) => encodeURIComponent(value);

describe('bad input: a 400 naming the option', () => {
  it('refuses $filter on other fields, functions, other operators and malformed expressions', async () => {
    const supported = 'supported: any field of Property but Media';
    await expectBad(
      `$filter=${q("ListPrice gt 'cheap'")}`,
      'query.$filter',
      'ListPrice is compared with a number',
      supported,
    );
    await expectBad(`$filter=${q("City gt 'Ronda'")}`, 'query.$filter', 'City takes eq, ne or in');
    await expectBad(`$filter=${q('Foo eq 1')}`, 'query.$filter', 'Foo is not a field of Property');
    await expectBad(`$filter=${q('Media eq 1')}`, 'query.$filter', 'Media cannot be filtered on');
    await expectBad(`$filter=${q("tolower(City) eq 'm'")}`, 'query.$filter', 'function tolower');
    await expectBad(`$filter=${q("StandardStatus gt 'Active'")}`, 'query.$filter', 'eq, ne or in or has');
    await expectBad(`$filter=${q("City has 'Active'")}`, 'query.$filter', 'has compares a lookup');
    await expectBad(
      `$filter=${q("StandardStatus eq 'Sold'")}`,
      'query.$filter',
      "'Sold'",
      "'Active Under Contract'",
    );
    await expectBad(`$filter=${q('StandardStatus eq Active')}`, 'query.$filter', 'quoted');
    await expectBad(`$filter=${q("StandardStatus eq 'Active")}`, 'query.$filter', 'not closed');
    await expectBad(`$filter=${q("StandardStatus eq 'Active' and")}`, 'query.$filter', 'the end');
    await expectBad(`$filter=${q("(StandardStatus eq 'Active'")}`, 'query.$filter', "')'");
    await expectBad(`$filter=${q("StandardStatus eq 'Active' xor 1")}`, 'query.$filter', 'xor');
    await expectBad(`$filter=${q("not StandardStatus eq 'Active'")}`, 'query.$filter', 'not (...)');
    await expectBad(`$filter=${q('ModificationTimestamp in (1)')}`, 'query.$filter', 'date-time');
    await expectBad(`$filter=${q('ModificationTimestamp gt 5 or')}`, 'query.$filter');
    await expectBad(`$filter=${q('   ')}`, 'query.$filter', 'empty');
    await expectBad(
      `$filter=${q(`${'('.repeat(12)}StandardStatus eq 'Active'${')'.repeat(12)}`)}`,
      'query.$filter',
      'nest',
    );
    await expectBad(`$filter=${q('StandardStatus ~ 1')}`, 'query.$filter', 'not understood');
  });

  it('refuses a ModificationTimestamp that is not a date-time with its zone', async () => {
    for (const value of [
      '2026-01-01',
      '2026-01-01T00:00:00',
      '2026-13-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:00:00+25:00',
      '0001-01-01T00:00:00+01:00',
      "'2026-01-01T00:00:00Z'",
      'now',
    ]) {
      await expectBad(
        `$filter=${q(`ModificationTimestamp gt ${value}`)}`,
        'query.$filter',
        'ModificationTimestamp',
      );
    }
    // An unencoded + arrives as a space: the hint says how to send it.
    await expectBad(
      `$filter=${q('ModificationTimestamp gt 2026-01-01T00:00:00')}+01:00`,
      'query.$filter',
      '%2B',
    );
  });

  it('refuses $top, $skip, $count, $select, $orderby and $skiptoken out of their bounds', async () => {
    await expectBad('$top=1001', 'query.$top', '1000');
    await expectBad('$top=-1', 'query.$top');
    await expectBad('$top=ten', 'query.$top');
    await expectBad('$skip=10001', 'query.$skip', '10000');
    await expectBad('$count=maybe', 'query.$count');
    await expectBad('$select=ListingKey,Foo', 'query.$select', 'Foo is not a field of Property', 'ListPrice');
    await expectBad('$select=ListingKey,', 'query.$select', 'empty item');
    await expectBad(`$orderby=${q('ListPrice desc')}`, 'query.$orderby', 'ListPrice cannot be sorted on');
    await expectBad(
      `$orderby=${q('ModificationTimestamp asc,ListingKey desc')}`,
      'query.$orderby',
      'supported',
    );
    await expectBad(`$orderby=${q('ModificationTimestamp sideways')}`, 'query.$orderby');
    await expectBad(`$orderby=${q('ListingKey,ModificationTimestamp')}`, 'query.$orderby');
    await expectBad('$skiptoken=garbage', 'query.$skiptoken', 'malformed');
    await expectBad('$skiptoken=bad!token', 'query.$skiptoken');
    const page = await resoPage(app, agency.secret.key, { $top: '1' });
    const token = new URL(page['@odata.nextLink'] as string).searchParams.get('$skiptoken') as string;
    await expectBad(`$skiptoken=${token}&$top=1&$skip=1`, 'query.$skip', '$skiptoken');
    await expectBad(
      `$skiptoken=${token}&$orderby=${q('ModificationTimestamp desc')}`,
      'query.$skiptoken',
      'not issued for this $filter and $orderby',
    );
    // Another agency's key: the token is sealed to the organization.
    const foreign = await api(app, 'GET', `/v1/reso/Property?$skiptoken=${token}`, { key: other.secret.key });
    expect(expectError(foreign, 400, 'VALIDATION_ERROR').message).toContain('query.$skiptoken');
  });

  it('refuses OData options it does not take, naming them and those it does', async () => {
    await expectBad('$expand=ListAgent', 'query.$expand', 'ListAgent cannot be expanded', 'Media');
    await expectBad('$search=pool', 'query.$search', 'is not supported');
    await expectBad('status=ACTIVE', 'query.status', 'is not supported');
    const one = await api(app, 'GET', `/v1/reso/Property('${listing.id}')?$top=1`, {
      key: agency.secret.key,
    });
    const error = expectError(one, 400, 'VALIDATION_ERROR');
    expect(error.message).toContain('query.$top is not supported: this resource takes $select, $expand');
    // What docs/reso.md lists as not served: other resources.
    for (const path of ['/v1/reso/Member', '/v1/reso/Media']) {
      expectError(await api(app, 'GET', path, { key: agency.secret.key }), 404, 'NOT_FOUND');
    }
  });
});

describe('keys, scopes and other agencies', () => {
  it('takes secret and read-only secret keys with listings:read, as the listing API', async () => {
    expectStatus(await api(app, 'GET', '/v1/reso/Property', { key: agency.readOnly.key }), 200);
    expectError(await api(app, 'GET', '/v1/reso/Property'), 401, 'UNAUTHORIZED');
    const publishable = await api(app, 'GET', '/v1/reso/Property', { key: agency.publishable.key });
    expectError(publishable, 403, 'FORBIDDEN');
    const unscoped = await createApiKey(app, agency.org.id, { type: 'secret', scopes: ['contacts:read'] });
    const refused = await api(app, 'GET', `/v1/reso/Property('${listing.id}')`, { key: unscoped.key });
    expect(expectError(refused, 403, 'FORBIDDEN').message).toContain('listings:read');
  });

  it("never lists another agency's listing, and its ListingKey is a 404 like an unknown one", async () => {
    const mine = await resoPage(app, agency.secret.key, { $top: '1000', $count: 'true' });
    expect(mine.value.map((record) => record.ListingKey)).not.toContain(theirs.id);
    expect(mine['@odata.count']).toBe(mine.value.length);
    const everything = await resoPage(app, agency.secret.key, {
      $filter: "ModificationTimestamp gt 2000-01-01T00:00:00Z or StandardStatus ne 'Active'",
    });
    expect(everything.value.map((record) => record.ListingKey)).not.toContain(theirs.id);
    const foreign = await api(app, 'GET', `/v1/reso/Property('${theirs.id}')`, { key: agency.secret.key });
    expect(expectError(foreign, 404, 'NOT_FOUND').message).toBe(`Property ${theirs.id} not found`);
    for (const path of ["Property('prop_0000000000000000000000')", "Property('not an id')", "Property('x"]) {
      const response = await api(app, 'GET', `/v1/reso/${encodeURI(path)}`, { key: agency.secret.key });
      expectError(response, 404, 'NOT_FOUND');
    }
    expectStatus(await api(app, 'GET', `/v1/reso/Property('${theirs.id}')`, { key: other.secret.key }), 200);
  });
});
