// The words of `$filter` (reso.filter.ts parses them) and its one way to fail: a 400 naming
// `query.$filter` that says what is supported.
import { Errors } from '../../platform/errors/errors.ts';

const FILTER = 'query.$filter';
/** What a `$filter` may hold, in the words of every 400 about it. */
export const FILTER_SUPPORT =
  'supported: any field of Property but Media, compared by its type in $metadata — numbers and ' +
  'date-times with eq, ne, gt, ge, lt, le (now() for the current instant, date(Field) with a date ' +
  '2026-01-01), text and lookups with eq, ne and in (...), lookups also with has and enum literals ' +
  "(StandardStatus has Namespace.StandardStatus'ActiveUnderContract'), dates (OnMarketDate) with a date such " +
  'as 2026-01-01, booleans with eq and ne, null with eq and ne; multi-valued lookups (View, ' +
  "ExteriorFeatures…) with has, Field/any(x: x eq 'Value' or x eq …) and Field/all(x: x eq …); contains, " +
  'startswith, endswith on text; combined with and, or, not (...) and parentheses';
export type Token =
  | { kind: '(' | ')' | ',' | ':'; at: number }
  | { kind: 'word'; text: string; at: number }
  | { kind: 'other'; text: string; at: number }
  | { kind: 'string'; value: string; at: number; end: number };

export const fail = (message: string): never => {
  throw Errors.invalidField(FILTER, `${message}; ${FILTER_SUPPORT}`);
};

export const describe = (token: Token | undefined): string => {
  if (token === undefined) return 'the end';
  if (token.kind === 'string') return `'${token.value}' at ${token.at + 1}`;
  if ('text' in token) return `'${token.text}' at ${token.at + 1}`;
  return `'${token.kind}' at ${token.at + 1}`;
};

export const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === ' ' || c === '\t') {
      i += 1;
    } else if (c === '(' || c === ')' || c === ',' || c === ':') {
      tokens.push({ kind: c, at: i });
      i += 1;
    } else if (c === "'") {
      const at = i;
      let value = '';
      i += 1;
      for (;;) {
        if (i >= text.length) fail(`the string starting at ${at + 1} is not closed`);
        if (text[i] === "'" && text[i + 1] === "'") {
          value += "'";
          i += 2;
        } else if (text[i] === "'") {
          i += 1;
          break;
        } else {
          value += text[i];
          i += 1;
        }
      }
      tokens.push({ kind: 'string', value, at, end: i });
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_./]*/.exec(text.slice(i))?.[0] ?? c;
      tokens.push({ kind: 'word', text: word, at: i });
      i += word.length;
    } else if (/[0-9+-]/.test(c)) {
      const run = /^[0-9A-Za-z:.+-]+/.exec(text.slice(i))?.[0] ?? c;
      tokens.push({ kind: 'other', text: run, at: i });
      i += run.length;
    } else {
      fail(`'${c}' at ${i + 1} is not understood`);
    }
  }
  return tokens;
}
