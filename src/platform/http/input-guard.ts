import type { FastifyInstance, preValidationAsyncHookHandler } from 'fastify';
import { Errors } from '../errors/errors.ts';
import { appendRouteHook } from './conventions.ts';

/** Finds the first string (key or value) holding U+0000; iterative, so deep JSON cannot overflow the stack. */
export function findNul(root: unknown, rootName: string): string | null {
  const stack: Array<[unknown, string]> = [[root, rootName]];
  while (stack.length > 0) {
    const [value, path] = stack.pop() as [unknown, string];
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return path;
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push([item, `${path}[${i}]`]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000')) return path;
        stack.push([item, `${path}.${key}`]);
      }
    }
  }
  return null;
}

/**
 * PostgreSQL refuses U+0000 in text and jsonb: reject it at the edge with a 400 naming the field,
 * before validation or any handler can turn it into a 500.
 */
export function registerInputGuard(app: FastifyInstance) {
  const guard: preValidationAsyncHookHandler = async function (request) {
    const field =
      findNul(request.params, 'path') ?? findNul(request.query, 'query') ?? findNul(request.body, 'body');
    if (field !== null) throw Errors.invalidField(field, 'must not contain NUL (U+0000) characters');
  };
  // Only routes that take input carry the guard: GET /v1/me and the like do not pay for it.
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    const takesInput =
      route.url.includes(':') || ['body', 'querystring', 'params'].some((part) => schema[part]);
    if (!takesInput) return;
    appendRouteHook(route, 'preValidation', guard);
  });
}
