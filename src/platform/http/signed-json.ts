// Hooks that others call with a body signed by a shared secret (the messaging platform's inbound hook, the
// mail system's bounce hook): `sha256=<hex HMAC-SHA256 of the raw body>` in a header, checked in constant
// time over the raw bytes before the body is parsed, so an unsigned body is never even read as JSON.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AppError, Errors } from '../errors/errors.ts';

export interface SignedHook {
  /** The shared secret; unset, the hook is off (503), not open. */
  secret: string | undefined;
  /** The signature's header as sent (`X-Hub-Signature-256`). */
  header: string;
  /** What the 503 says, naming the setting: "The messaging hook is disabled: … is not set". */
  disabled: string;
}

/** 503 without a secret; 401 for a missing, malformed or wrong signature of `rawBody`. */
export function verifySignedBody(hook: SignedHook, rawBody: Buffer, value: unknown): void {
  if (!hook.secret) throw new AppError('SERVICE_UNAVAILABLE', hook.disabled);
  const match = typeof value === 'string' ? /^sha256=([0-9a-fA-F]{64})$/.exec(value.trim()) : null;
  if (!match) throw new AppError('UNAUTHORIZED', `Missing or malformed ${hook.header} header (sha256=<hex>)`);
  const expected = createHmac('sha256', hook.secret).update(rawBody).digest();
  const given = Buffer.from((match[1] as string).toLowerCase(), 'hex');
  if (!timingSafeEqual(expected, given)) {
    throw new AppError('UNAUTHORIZED', `${hook.header} does not match the body`);
  }
}

/**
 * Replaces the JSON parser of `app` (an encapsulated plugin: the hook's routes only) with one that
 * checks the signature over the raw bytes first, then parses (400 for JSON that does not parse).
 */
export function acceptSignedJson(app: FastifyInstance, hook: SignedHook): void {
  const header = hook.header.toLowerCase();
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    try {
      verifySignedBody(hook, raw as Buffer, request.headers[header]);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    try {
      done(null, JSON.parse((raw as Buffer).toString('utf8')));
    } catch {
      done(Errors.validation('body is not valid JSON', [{ field: 'body', message: 'is not valid JSON' }]));
    }
  });
}
