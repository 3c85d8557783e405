import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, preValidationAsyncHookHandler } from 'fastify';
import { Errors } from '../errors/errors.ts';
import { appendRouteHook } from './conventions.ts';

/** In `u` mode a valid surrogate pair is one code point: only a lone surrogate matches. */
const LONE_SURROGATE = /\p{Cs}/u;

/** What is wrong with one string (key or value), or null. */
function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL (U+0000) characters';
  if (LONE_SURROGATE.test(text)) return 'must be well-formed Unicode (it holds a lone surrogate)';
  return null;
}

/**
 * Free-form JSON (`customFields`, usage-event `props`, MCP messages) is copied, serialized and
 * validated by recursive code (JSON.stringify, PostgreSQL's jsonb, the MCP SDK): thousands of levels
 * overflowed a stack there (500s and a JSON-RPC parse error, found by the long fuzz run). No field of
 * this API needs more than a few levels.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * Finds the first string (key or value) that PostgreSQL cannot store as sent, or nesting deeper than
 * MAX_BODY_DEPTH levels of arrays and objects; iterative, so deep JSON cannot overflow the stack.
 */
export function findBadInput(root: unknown, rootName: string): { field: string; problem: string } | null {
  const stack: Array<[unknown, string, number]> = [[root, rootName, 0]];
  while (stack.length > 0) {
    const [value, path, depth] = stack.pop() as [unknown, string, number];
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { field: path, problem };
    } else if (value !== null && typeof value === 'object') {
      if (depth + 1 > MAX_BODY_DEPTH)
        return {
          field: rootName,
          problem: `must not nest arrays and objects deeper than ${MAX_BODY_DEPTH} levels`,
        };
      if (Array.isArray(value)) {
        value.forEach((item, i) => stack.push([item, `${path}[${i}]`, depth + 1]));
      } else {
        for (const [key, item] of Object.entries(value)) {
          const problem = textProblem(key);
          if (problem) return { field: path, problem };
          stack.push([item, `${path}.${key}`, depth + 1]);
        }
      }
    }
  }
  return null;
}

/**
 * PostgreSQL refuses U+0000 in text and jsonb, and refuses a lone surrogate (JSON allows `\ud800`)
 * in jsonb while silently turning it into U+FFFD in text: reject both at the edge with a 400 naming
 * the field, before validation or any handler can turn them into a 500 or a changed value.
 */
export function registerInputGuard(app: FastifyInstance) {
  // JSON is UTF-8 (RFC 8259). Read as text, invalid bytes became U+FFFD: a silent change of what
  // the client sent. Checked on the bytes, then Fastify's own parser (prototype-poisoning guard).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (!isUtf8(body as Buffer)) {
      done(Errors.invalidField('body', 'is not valid UTF-8'), undefined);
      return;
    }
    parseJson(request, (body as Buffer).toString('utf8'), done);
  });

  const guard: preValidationAsyncHookHandler = async function (request) {
    const bad =
      findBadInput(request.params, 'path') ??
      findBadInput(request.query, 'query') ??
      findBadInput(request.body, 'body');
    if (bad !== null) throw Errors.invalidField(bad.field, bad.problem);
  };
  // An HTTP/1.1 request must name its Host (RFC 9112 §3.2). Node's own check answers an empty 400
  // outside Fastify, so app.ts turns it off (requireHostHeader: false) and it is made here.
  app.addHook('onRequest', async (request) => {
    const { httpVersionMajor, httpVersionMinor } = request.raw;
    if (request.headers.host === undefined && httpVersionMajor === 1 && httpVersionMinor >= 1) {
      throw Errors.invalidField('header.Host', 'is required on HTTP/1.1');
    }
  });

  // Only routes that take input carry the guard: GET /v1/me and the like do not pay for it.
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    const takesInput =
      route.url.includes(':') || ['body', 'querystring', 'params'].some((part) => schema[part]);
    if (!takesInput) return;
    appendRouteHook(route, 'preValidation', guard);
  });
}
