import type { FastifyInstance } from 'fastify';
import { Errors } from '../errors/errors.ts';

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
  app.addHook('preValidation', async (request) => {
    const field =
      findNul(request.params, 'path') ?? findNul(request.query, 'query') ?? findNul(request.body, 'body');
    if (field !== null) throw Errors.invalidField(field, 'must not contain NUL (U+0000) characters');
  });
}
