import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/test-app.ts';
import { loadApi } from './support/operations.ts';
import { mutate, mutation, RawJson, toJson, type Mutation } from './support/values.ts';

/** The fuzz harness's own invariants: a generated request must never change the values it came from. */
describe('fuzz harness: mutations', () => {
  it('never edits the value it inserts (fast-check hands out shared constants)', () => {
    const shared: unknown[] = [];
    const mutations: Mutation[] = [
      { at: 0, kind: 'replace', value: shared, key: '' },
      { at: 0, kind: 'add', value: shared, key: '' },
    ];
    expect(toJson(mutate({ a: 1 }, mutations))).toBe('[[]]');
    expect(toJson(mutate({ a: 1 }, mutations))).toBe('[[]]');
    expect(shared).toEqual([]);
  });

  it('never edits a value wrapped inside an inserted one', () => {
    const shared = [null];
    mutate('x', [
      { at: 0, kind: 'replace', value: shared, key: '' },
      { at: 1, kind: 'wrap', value: null, key: '' },
    ]);
    expect(shared).toEqual([null]);
  });

  it('shares no object with the drawn mutations, so no draw can change a later one', () => {
    const drawn = fc.sample(fc.array(mutation, { maxLength: 2 }), { numRuns: 500, seed: 42 });
    for (const ms of drawn) {
      const inserted = new Set(ms.map((m) => m.value).filter((v) => v !== null && typeof v === 'object'));
      const shared = objectsIn(mutate({ a: [1, { b: 'c' }] }, ms)).filter((o) => inserted.has(o));
      expect(shared, `mutations ${ms.map((m) => m.kind).join(', ')}`).toEqual([]);
    }
  });
});

/** Every array and object in a value; a RawJson is immutable text, a leaf (mutations nest only a few levels). */
function objectsIn(root: unknown): object[] {
  const found: object[] = [];
  const stack = [root];
  while (stack.length > 0 && found.length < 10_000) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object' || value instanceof RawJson) continue;
    found.push(value);
    stack.push(...Object.values(value));
  }
  return found;
}

/** The response checker every test app runs (test/helpers/response-contract.ts) must catch what it is for. */
describe('fuzz harness: the response checker', () => {
  it('refuses a body off its documented schema and accepts a conforming one, per status', async () => {
    const app = await buildTestApp();
    try {
      const api = await loadApi(app);
      const anError = {
        error: {
          type: 'authentication_error',
          code: 'API_KEY_MISSING',
          message: 'no key',
          requestId: 'req_1',
        },
      };
      const conforming = (await app.inject({ method: 'GET', url: '/v1/me' })).json();
      expect(api.responseErrors('me.get', 401, conforming)).toBeNull();
      expect(api.responseErrors('me.get', 401, { error: 'nope' })).toMatch(/\/error must be object/);
      expect(api.responseErrors('me.get', 200, anError)).toMatch(/must have required property 'data'/);
      // A second document (another app) reuses compiled validators but still checks by its own schemas.
      const other = await buildTestApp();
      const again = await loadApi(other);
      await other.close();
      expect(again.responseErrors('me.get', 200, {})).toMatch(/must have required property 'data'/);
    } finally {
      await app.close();
    }
  });
});
