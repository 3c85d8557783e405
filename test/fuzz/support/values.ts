/**
 * fast-check arbitraries for hostile input: values shaped by a JSON Schema (mostly valid, so the
 * request reaches the service and the database) and the values that break naive code (NUL, lone
 * surrogates, huge numbers, deep JSON, long strings, LIKE wildcards, case-folding surprises).
 *
 * Written here rather than taken from a library: no maintained JSON Schema -> fast-check converter
 * exists, and the document uses a small set of keywords (type, enum, anyOf, min/max, length,
 * pattern, four formats, items, properties, required, additionalProperties, min/maxProperties).
 */
import fc from 'fast-check';
import type { Schema } from './operations.ts';

/** JSON text inserted as is where a value goes: numbers JSON.stringify cannot write, deep nesting. */
export class RawJson {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text.length > 60
      ? `RawJson(${this.text.slice(0, 40)}… ${this.text.length} chars)`
      : this.text;
  }
}

/** JSON text of a generated value; RawJson pieces go in verbatim. Iterative: values can be deep. */
export function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

// ---------------------------------------------------------------------------------------------
// Hostile atoms

/** Characters that break naive code: NUL, lone surrogates, BOM, RTL override, LIKE wildcards, quotes. */
export const NASTY_CHARS = [
  '\u0000',
  '\uD800',
  '\uDFFF',
  '\uFEFF',
  '\uFFFE',
  '\u202E',
  '\u200B',
  '\u0301',
  '\r',
  '\n',
  '\t',
  '%',
  '_',
  '\\',
  "'",
  '"',
  '`',
  '$',
  '{',
  '}',
  '<',
  '>',
  '&',
  '/',
  '?',
  '#',
  'ß',
  'İ',
  'ﬃ',
  'ǅ',
  '😀',
  '👩‍👩‍👧‍👦',
  '\u{10FFFF}',
];

/** Whole strings that break naive code. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDBFFy',
  '\uDC00\uD800',
  '\uFEFF{}',
  '%',
  '%%',
  '_',
  '\\',
  '\\\\%',
  "'; DROP TABLE contacts; --",
  "' OR '1'='1",
  '$1',
  '${7*7}',
  '{{name}}',
  '{{',
  '{{constructor.constructor}}',
  '__proto__',
  'constructor',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e308',
  '9223372036854775808',
  '0000-00-00',
  '2024-02-30',
  '9999-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00Z',
  '-271821-04-20T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '2024-01-01T25:61:61Z',
  '25:61',
  '+',
  '+0',
  '+999999999999999999999999',
  '+34612345678',
  '@',
  'a@b',
  'a@b.c\u0000',
  'http://127.0.0.1/',
  'https://169.254.169.254/latest/meta-data',
  'javascript:alert(1)',
  'ß'.repeat(50),
  'İ'.repeat(50),
  'ﷺ'.repeat(30),
  '\u0301'.repeat(500),
  '😀'.repeat(100),
  '\u202Eevil',
  'a\r\nX-Injected: 1',
];

/** Number literals as JSON text: beyond double range, beyond 2^53 and 2^63, negative zero, tiny. */
export const NASTY_NUMBER_LITERALS = [
  '0',
  '-0',
  '-1',
  '0.5',
  '1e308',
  '-1e308',
  '1.7976931348623157e308',
  '1e309',
  '-1e309',
  '5e-324',
  '1e-400',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551616',
  '-9223372036854775809',
  '2147483648',
  '-2147483649',
  '1' + '0'.repeat(400),
  '0.' + '0'.repeat(400) + '1',
  '1E+2',
  '100000000000000000000000000000000000000.5',
];

/** The same numbers as query-string text, plus what JSON cannot say. */
export const NASTY_NUMBER_TEXT = [
  ...NASTY_NUMBER_LITERALS,
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '0b1',
  '1_000',
  ' 1',
  '1 ',
  '1.',
  '.1',
  '+1',
  '',
  'true',
  '[]',
  '1,2',
];

/** One character: mostly plain, sometimes any code point, sometimes a nasty one. */
const unit = fc.oneof(
  { weight: 20, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom(...NASTY_CHARS) },
);

/** A string of hostile characters (lengths in UTF-16 units may exceed the requested ones). */
export function hostileText(maxLength = 40): fc.Arbitrary<string> {
  return fc.string({ unit, maxLength });
}

/** A string built to be long: up to 1 MB of one character, or a repeated nasty piece. */
export const longString = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('a', 'é', '😀', '%', '\u0000', '\uD800'),
      fc.constantFrom(1_000, 65_536, 1_000_000),
    )
    .map(([c, n]) => c.repeat(Math.ceil(n / c.length))),
  fc
    .tuple(fc.constantFrom(...NASTY_STRINGS), fc.integer({ min: 100, max: 5_000 }))
    .map(([s, n]) => s.repeat(n)),
);

/** JSON nested `depth` levels (arrays or objects); the body limit allows ~500k levels. */
export const deepJson = fc
  .tuple(fc.constantFrom(64, 1_000, 10_000, 100_000), fc.boolean())
  .map(
    ([depth, arrays]) =>
      new RawJson(
        arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
      ),
  );

/** Any hostile JSON value. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 3, arbitrary: hostileText() },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_NUMBER_LITERALS).map((n) => new RawJson(n)) },
  { weight: 1, arbitrary: longString },
  { weight: 1, arbitrary: deepJson },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { '': '' }, { 'a.b': 1 }, [
      '\u0000',
    ]),
  },
  {
    weight: 2,
    arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => v as unknown),
  },
);

// ---------------------------------------------------------------------------------------------
// Schema-shaped values

/**
 * Realistic values by property name, so a "valid" body also passes the service's own rules
 * (a phone that parses, a URL the webhook check admits, an id that exists).
 */
export type NamedValues = (name: string) => fc.Arbitrary<unknown> | null;

const isoDate = (from: number, to: number) =>
  fc.integer({ min: from, max: to }).map((t) => new Date(t).toISOString());

function stringFor(schema: Schema): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 60;
  const fits = (s: string) => [...s].length >= minLength && [...s].length <= maxLength;
  switch (schema.format) {
    case 'email':
      return fc.emailAddress().filter(fits);
    case 'date-time':
      return isoDate(Date.UTC(2000, 0, 1), Date.UTC(2040, 0, 1));
    case 'date':
      return isoDate(Date.UTC(2000, 0, 1), Date.UTC(2040, 0, 1)).map((s) => s.slice(0, 10));
    case 'uri':
      return fc.webUrl().filter(fits);
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    // Patterns anchored only at the start admit any tail: keep it short.
    return fc.stringMatching(new RegExp(schema.pattern), { maxLength: Math.min(maxLength, 80) }).filter(fits);
  }
  return fc.string({ unit, minLength, maxLength: Math.min(maxLength, minLength + 40) });
}

function numberFor(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const low = typeof schema.minimum === 'number' ? schema.minimum : -1e6;
  const exclusiveLow = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : null;
  const min = exclusiveLow !== null ? exclusiveLow + (integer ? 1 : 1e-6) : low;
  const max = typeof schema.maximum === 'number' ? schema.maximum : min + 1e7;
  const inRange = integer
    ? fc.integer({ min: Math.ceil(Math.max(min, -(2 ** 52))), max: Math.floor(Math.min(max, 2 ** 52)) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  // The boundaries themselves, where off-by-one and overflow live.
  return fc.oneof({ weight: 5, arbitrary: inRange }, { weight: 1, arbitrary: fc.constantFrom(min, max) });
}

/**
 * A value of `schema`, valid unless a nasty character lands in a string (the edge must refuse
 * those with a 400). `named` supplies realistic values for known property names.
 */
export function valueFor(schema: Schema, named: NamedValues, name = '', depth = 0): fc.Arbitrary<unknown> {
  // An enum or a constant says more than the name (a property's `type` is not an event type).
  const constrained = Array.isArray(schema.enum) || 'const' in schema;
  const realistic = name && !constrained ? named(name) : null;
  const generic = genericValueFor(schema, named, depth);
  if (!realistic) return generic;
  return fc.oneof({ weight: 4, arbitrary: realistic }, { weight: 1, arbitrary: generic });
}

function genericValueFor(schema: Schema, named: NamedValues, depth: number): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return fc.oneof(...options.map((option) => valueFor(option, named, '', depth)));
  if (schema.allOf?.[0]) return valueFor(schema.allOf[0], named, '', depth);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ['string'];
  return fc.oneof(...types.map((type) => valueOfType(type, schema, named, depth)));
}

function valueOfType(type: string, schema: Schema, named: NamedValues, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return numberFor(schema, true);
    case 'number':
      return numberFor(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = schema.items ?? {};
      const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const maxLength = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 4, minLength + 4);
      const item = depth > 4 ? fc.constant(null) : valueFor(items, named, '', depth + 1);
      return schema.uniqueItems
        ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(item, { minLength, maxLength });
    }
    case 'object':
      return objectFor(schema, named, depth);
    default:
      return fc.constant(null);
  }
}

function objectFor(schema: Schema, named: NamedValues, depth: number): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const names = Object.keys(properties);
  if (names.length === 0) {
    // A free-form object (props, customFields, variables): hostile keys and values.
    return fc.dictionary(
      fc.oneof(hostileText(12), fc.constantFrom(...NASTY_STRINGS)),
      fc.jsonValue({ maxDepth: 2 }),
      {
        maxKeys: 5,
      },
    );
  }
  const optional = names.filter((n) => !required.has(n));
  const minOptional = Math.max(
    0,
    (typeof schema.minProperties === 'number' ? schema.minProperties : 0) - required.size,
  );
  const fields = (keys: string[]) =>
    fc.record(
      Object.fromEntries(
        keys.map((key) => [
          key,
          depth > 4 ? fc.constant(null) : valueFor(properties[key] as Schema, named, key, depth + 1),
        ]),
      ),
    );
  return fc
    .subarray(optional, { minLength: Math.min(minOptional, optional.length) })
    .chain((chosen) => fields([...required, ...chosen]));
}

// ---------------------------------------------------------------------------------------------
// Mutations: a valid value with a few of its parts broken

export interface Mutation {
  /** Picks the node (pre-order index modulo the node count). */
  at: number;
  kind: 'replace' | 'delete' | 'add' | 'wrap';
  value: unknown;
  key: string;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('replace', 'replace', 'replace', 'delete', 'add', 'wrap'),
  value: hostileValue,
  key: fc.oneof(
    fc.constantFrom('__proto__', 'constructor', 'extra', '', 'id', 'organizationId'),
    hostileText(10),
  ),
});

interface Slot {
  parent: Record<string, unknown> | unknown[] | null;
  key: string | number;
  value: unknown;
}

function slots(root: unknown): Slot[] {
  const found: Slot[] = [{ parent: null, key: '', value: root }];
  for (let i = 0; i < found.length && found.length < 500; i += 1) {
    const { value } = found[i] as Slot;
    if (value instanceof RawJson || value === null || typeof value !== 'object') continue;
    for (const [key, child] of Object.entries(value)) {
      const parent = value as Record<string, unknown>;
      found.push({ parent, key: Array.isArray(value) ? Number(key) : key, value: child });
    }
  }
  return found;
}

/**
 * Applies the mutations to a copy of `value` (deterministic, so fast-check can replay it). Inserted
 * values are copied too: the arbitraries hand out shared constants (`[]`, `{}`, `[null]`), and a
 * later mutation adding into one of them changed it for every later run, or put an array inside
 * itself, after which every operation died with "Maximum call stack size exceeded" in `toJson`
 * (the FUZZ_RUNS=2000 harness failure of docs/reliability.md).
 */
export function mutate(value: unknown, mutations: Mutation[]): unknown {
  let root: unknown = structuredCloneSafe(value);
  for (const original of mutations) {
    const m = { ...original, value: structuredCloneSafe(original.value) };
    const all = slots(root);
    const slot = all[m.at % all.length] as Slot;
    const container =
      slot.value !== null && typeof slot.value === 'object' && !(slot.value instanceof RawJson);
    if (m.kind === 'add' && container) {
      if (Array.isArray(slot.value)) slot.value.push(m.value);
      // defineProperty: a "__proto__" key must become an own property, as JSON.parse makes it.
      else
        Object.defineProperty(slot.value, m.key, {
          value: m.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      continue;
    }
    const replacement = m.kind === 'wrap' ? [slot.value] : m.kind === 'delete' ? undefined : m.value;
    if (slot.parent === null) {
      root = replacement ?? null;
    } else if (Array.isArray(slot.parent)) {
      if (replacement === undefined) slot.parent.splice(slot.key as number, 1);
      else slot.parent[slot.key as number] = replacement;
    } else if (replacement === undefined) {
      delete slot.parent[slot.key as string];
    } else {
      slot.parent[slot.key as string] = replacement;
    }
  }
  return root;
}

function structuredCloneSafe(value: unknown): unknown {
  if (value instanceof RawJson || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(structuredCloneSafe);
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(copy, k, {
      value: structuredCloneSafe(v),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
