import { createHash } from 'node:crypto';
import type { FastifyInstance, onSendAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import type { Database } from '../../db/database.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { AppError, Errors } from '../errors/errors.ts';
import { appendRouteHook } from '../http/conventions.ts';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from './idempotency.store.ts';

export const IDEMPOTENCY_KEY_PATTERN = /^[a-zA-Z0-9._:-]{8,128}$/;

/**
 * How long a request whose key another request still holds waits for that one's answer before the
 * 409 `Retry-After: 1`: most writes take milliseconds, so a client's parallel retry gets the answer.
 */
export const IN_PROGRESS_WAIT_MS = 5_000;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set while this request holds an Idempotency-Key claim. */
    idempotencyClaim: { organizationId: string; key: string } | null;
  }
}

/**
 * Failures that store nothing, so the client may retry with the same key: the request was refused
 * before it ran (validation, auth, limits) or the server failed (5xx, e.g. 502 MESSAGING_ERROR).
 */
function shouldStore(status: number): boolean {
  return status < 400 || (status >= 400 && status < 500 && ![400, 401, 403, 429].includes(status));
}

/**
 * What a stored response is sealed with (decision 0160): it binds the sealed body to its record, so
 * one organization's stored answer cannot be replayed from another's row.
 */
export function responseContext(organizationId: string, key: string): string {
  return `idempotency:${organizationId}:${key}`;
}

function fingerprintOf(method: string, url: string, body: unknown): string {
  const path = url.split('?')[0] ?? url;
  return createHash('sha256')
    .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
    .digest('hex');
}

/**
 * Idempotency-Key on every POST (Stripe semantics, DESIGN.md): after auth, limits and validation,
 * the key is claimed in PostgreSQL, scoped to the organization; a completed record is replayed with
 * `Idempotent-Replayed: true`; another body gets 409 DUPLICATE; a request whose first is still running
 * waits for it up to `inProgressWaitMs` (then replays its answer, or runs if it failed), and gets 409
 * with `Retry-After: 1` only past that (so retrying clients stop on a mismatch, not on a slow first). Every stored response body
 * is sealed with `secrets` (AES-256-GCM): API key creation and webhook creation or rotation answer
 * with a secret, and a replay must give the same bytes back without the table holding them in clear.
 */
export function registerIdempotency(
  app: FastifyInstance,
  db: Database,
  secrets: SecretBox,
  options: { inProgressWaitMs: number } = { inProgressWaitMs: IN_PROGRESS_WAIT_MS },
) {
  app.decorateRequest('idempotencyClaim', null);

  const claim: preHandlerAsyncHookHandler = async function (request, reply) {
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    const key = Array.isArray(header) ? undefined : header;
    if (key === undefined || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw Errors.invalidField(
        'header.Idempotency-Key',
        'must be one value of 8-128 characters from a-z, A-Z, 0-9, ".", "_", ":" and "-"',
      );
    }
    const organizationId = request.idempotencyScope;
    if (organizationId === null) return;

    const fingerprint = fingerprintOf(request.method, request.url, request.body);
    const claimOnce = async () => {
      try {
        // eslint-disable-next-line no-restricted-syntax -- the edge's own record, scoped by the auth hook to the caller's organization or the operator's scope.
        return await db.tenantTx(organizationId, (tx) =>
          claimIdempotencyKey(tx, organizationId, key, fingerprint),
        );
      } catch (error) {
        // An admin route naming an organization that does not exist (foreign key).
        if ((error as { cause?: { code?: string } }).cause?.code === '23503')
          throw Errors.notFound('Organization', organizationId);
        throw error;
      }
    };
    // A concurrent duplicate waits, bounded, for the first request (issue 37): its answer is replayed,
    // or the key is claimed again if the first failed without storing one; 409 only past the wait.
    let outcome = await claimOnce();
    const deadline = Date.now() + options.inProgressWaitMs;
    for (
      let pause = 25;
      outcome.kind === 'in_progress' && Date.now() < deadline;
      pause = Math.min(pause * 2, 200)
    ) {
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(pause, Math.max(0, deadline - Date.now()))),
      );
      outcome = await claimOnce();
    }
    switch (outcome.kind) {
      case 'claimed':
        request.idempotencyClaim = { organizationId, key };
        return;
      case 'mismatch':
        throw Errors.duplicate(
          `Idempotency-Key ${key} was already used with a different request; use a new key for a new request`,
        );
      case 'in_progress':
        throw new AppError(
          'DUPLICATE',
          `A request with Idempotency-Key ${key} is still in progress; retry shortly`,
          {
            headers: { 'retry-after': '1' },
          },
        );
      case 'completed': {
        // A body this process cannot open (sealed under a key no longer configured) is a 500 whose
        // logged cause names the key: running the request again could repeat its effect.
        const body = secrets.reveal(outcome.body, responseContext(organizationId, key));
        reply.header('idempotent-replayed', 'true');
        return reply.code(outcome.status).type('application/json; charset=utf-8').send(body);
      }
    }
  };

  const record: onSendAsyncHookHandler = async function (request, reply, payload) {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = null;
    const status = reply.statusCode;
    try {
      // eslint-disable-next-line no-restricted-syntax -- the edge's own record, scoped by the auth hook to the caller's organization or the operator's scope.
      await db.tenantTx(claim.organizationId, (tx) =>
        shouldStore(status) && typeof payload === 'string'
          ? completeIdempotencyKey(
              tx,
              claim.organizationId,
              claim.key,
              status,
              secrets.seal(payload, responseContext(claim.organizationId, claim.key)),
            )
          : releaseIdempotencyKey(tx, claim.organizationId, claim.key),
      );
    } catch (error) {
      // The response still goes out; the claim lapses after its lease.
      request.log.error({ err: error }, 'could not record the idempotent response');
    }
    return payload;
  };

  // Only POST routes carry these hooks: other requests do not pay for them.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST') || route.config?.idempotency === false) return;
    appendRouteHook(route, 'preHandler', claim);
    appendRouteHook(route, 'onSend', record);
  });
}
