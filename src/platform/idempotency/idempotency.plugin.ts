import { createHash } from 'node:crypto';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onSendAsyncHookHandler,
  preHandlerAsyncHookHandler,
  RouteHandlerMethod,
} from 'fastify';
import type { Database, Tx } from '../../db/database.ts';
import { UnitOfWork, type UnitRecord } from '../../db/unit-of-work.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { errorBody, toAppError } from '../errors/error-handler.ts';
import { AppError, Errors } from '../errors/errors.ts';
import { appendRouteHook } from '../http/conventions.ts';
import {
  claimIdempotencyKey,
  findIdempotencyRecord,
  lockIdempotencyRecord,
  markIdempotencyRecord,
  releaseIdempotencyKey,
  storeIdempotentAnswer,
  type Found,
} from './idempotency.store.ts';

export const IDEMPOTENCY_KEY_PATTERN = /^[a-zA-Z0-9._:-]{8,128}$/;

/**
 * How long a request whose key another request still holds waits for that one's answer before the
 * 409 `Retry-After: 1`: most writes take milliseconds, so a client's parallel retry gets the answer.
 */
export const IN_PROGRESS_WAIT_MS = 5_000;

/** One request's key: its scope, the key, what it was sent with, and whether another took it. */
interface KeyClaim {
  organizationId: string;
  key: string;
  fingerprint: string;
  unit: UnitOfWork;
  /** The record's claim found the key taken (a first committed or still runs): the answer is its. */
  taken: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set while this request runs under an Idempotency-Key (its unit of work). */
    idempotencyClaim: KeyClaim | null;
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

/** The in-progress 409: the first request still runs past the wait. */
function inProgress(key: string): AppError {
  return new AppError(
    'DUPLICATE',
    `A request with Idempotency-Key ${key} is still in progress; retry shortly`,
    {
      headers: { 'retry-after': '1' },
    },
  );
}

function mismatch(key: string): AppError {
  return Errors.duplicate(
    `Idempotency-Key ${key} was already used with a different request; use a new key for a new request`,
  );
}

/**
 * Idempotency-Key on every POST (Stripe semantics, DESIGN.md; decision 0246), after auth, limits and
 * validation, scoped to the organization:
 * - a completed record is replayed with `Idempotent-Replayed: true`; another body gets 409 DUPLICATE;
 * - otherwise the request runs as one unit of work (db/unit-of-work.ts): the key is claimed first in
 *   its first writing transaction, every later transaction of the request runs inside that one, and
 *   the answer is stored in it before it commits. A crash leaves the effects and the record both or
 *   neither, so a retry after a crash runs at once;
 * - a concurrent duplicate's claim waits on the first's uncommitted row up to `inProgressWaitMs`, then
 *   replays its answer (or runs, if the first failed); 409 with `Retry-After: 1` only past the wait;
 * - a request that committed a recovery point before an outside effect and has not answered is waited
 *   for as long, then resumed from that point (the message's platform call is made again with the
 *   same idempotency key, so the platform sends it once).
 * Every stored response body is sealed with `secrets` (AES-256-GCM): API key creation and webhook
 * creation or rotation answer with a secret, and a replay must give the same bytes back without the
 * table holding them in clear.
 */
export function registerIdempotency(
  app: FastifyInstance,
  db: Database,
  secrets: SecretBox,
  options: { inProgressWaitMs: number } = { inProgressWaitMs: IN_PROGRESS_WAIT_MS },
) {
  app.decorateRequest('idempotencyClaim', null);
  const waitMs = options.inProgressWaitMs;

  const inScope = <T>(organizationId: string, work: (tx: Tx) => Promise<T>) =>
    // eslint-disable-next-line no-restricted-syntax -- the edge's own record, scoped by the auth hook to the caller's organization or the operator's scope.
    db.tenantTx(organizationId, work);

  const find = async (organizationId: string, key: string, fingerprint: string): Promise<Found> => {
    try {
      return await inScope(organizationId, (tx) =>
        findIdempotencyRecord(tx, organizationId, key, fingerprint),
      );
    } catch (error) {
      // An admin route naming an organization that does not exist (foreign key).
      if ((error as { cause?: { code?: string } }).cause?.code === '23503')
        throw Errors.notFound('Organization', organizationId);
      throw error;
    }
  };

  /** The record's part in the unit's transactions: the claim, then this request's own row. */
  const recordOf = (
    claim: Omit<KeyClaim, 'unit' | 'taken'>,
    resumedAt: string | null,
    held: { taken: boolean },
  ) => {
    const { organizationId, key, fingerprint } = claim;
    let point = resumedAt;
    const record: UnitRecord = {
      async begin(tx, first) {
        const ours = first
          ? await claimIdempotencyKey(tx, organizationId, key, fingerprint, waitMs)
          : await lockIdempotencyRecord(tx, organizationId, key, point, waitMs);
        if (!ours) {
          held.taken = true;
          throw inProgress(key);
        }
      },
      async mark(tx, at, data) {
        await markIdempotencyRecord(tx, organizationId, key, at, data);
        point = at;
      },
    };
    return record;
  };

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
    // A record with no answer yet (a recovery point, or a claim from before migration 0028) is waited
    // for, bounded; a running first's uncommitted claim is invisible here and waited for by our own.
    let found = await find(organizationId, key, fingerprint);
    const deadline = Date.now() + waitMs;
    for (
      let pause = 25;
      (found.kind === 'recovering' || found.kind === 'held') && Date.now() < deadline;
      pause = Math.min(pause * 2, 200)
    ) {
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(pause, Math.max(0, deadline - Date.now()))),
      );
      found = await find(organizationId, key, fingerprint);
    }
    switch (found.kind) {
      case 'mismatch':
        throw mismatch(key);
      case 'held':
        throw inProgress(key);
      case 'completed':
        return replay(request, reply, organizationId, key, found);
      case 'none':
      case 'recovering': {
        const resumed = found.kind === 'recovering' ? { point: found.point, data: found.data } : null;
        const held = { taken: false };
        const record = recordOf({ organizationId, key, fingerprint }, resumed?.point ?? null, held);
        const claimed: KeyClaim = {
          organizationId,
          key,
          fingerprint,
          unit: new UnitOfWork(record, resumed),
          get taken() {
            return held.taken;
          },
        };
        request.idempotencyClaim = claimed;
        return;
      }
    }
  };

  /** Sends a completed record's answer (the preHandler's replay). */
  function replay(
    request: FastifyRequest,
    reply: FastifyReply,
    organizationId: string,
    key: string,
    found: { status: number; body: string },
  ) {
    // A body this process cannot open (sealed under a key no longer configured) is a 500 whose
    // logged cause names the key: running the request again could repeat its effect.
    const body = secrets.reveal(found.body, responseContext(organizationId, key));
    reply.header('idempotent-replayed', 'true');
    return reply.code(found.status).type('application/json; charset=utf-8').send(body);
  }

  /** The answer in place of the one the request made: an error, or the first request's. */
  function answerInstead(request: FastifyRequest, reply: FastifyReply, error: AppError): string {
    if (error.headers) reply.headers(error.headers);
    request.errorSummary = { code: error.code, message: error.message };
    reply.code(error.statusCode).type('application/json; charset=utf-8');
    return JSON.stringify(errorBody(error, request.id));
  }

  const record: onSendAsyncHookHandler = async function (request, reply, payload) {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = null;
    const { organizationId, key, fingerprint, unit } = claim;

    if (claim.taken) {
      // Another request holds the key: whatever this one did rolls back, and it answers as that one.
      await unit.finish(null);
      const found = await find(organizationId, key, fingerprint);
      if (found.kind === 'completed') {
        reply
          .header('idempotent-replayed', 'true')
          .code(found.status)
          .type('application/json; charset=utf-8');
        request.errorSummary = null;
        return secrets.reveal(found.body, responseContext(organizationId, key));
      }
      return answerInstead(request, reply, found.kind === 'mismatch' ? mismatch(key) : inProgress(key));
    }

    const status = reply.statusCode;
    const release = (tx: Tx) => releaseIdempotencyKey(tx, organizationId, key);
    try {
      if (shouldStore(status) && typeof payload === 'string') {
        const sealed = secrets.seal(payload, responseContext(organizationId, key));
        const store = (tx: Tx) => storeIdempotentAnswer(tx, organizationId, key, fingerprint, status, sealed);
        // Nothing open: the request wrote nothing, or committed all it wrote at a checkpoint.
        if (!(await unit.finish(store))) await inScope(organizationId, store);
        return payload;
      }
      // Not stored, so the client may retry with the same key: what the request wrote rolls back,
      // unless it recorded an outside effect's failure (keepIfFailed), which commits with the release.
      const committed = await unit.finish(unit.keepsIfFailed ? release : null);
      if (!committed || !unit.keepsIfFailed) {
        if (unit.recorded) await inScope(organizationId, release);
      }
      return payload;
    } catch (error) {
      // The effects and the answer did not commit (the database failed at the end): nothing happened,
      // and the client is told so; its retry runs the request again.
      const failure = toAppError(error);
      request.log.error({ err: error }, 'the request could not commit with its idempotency record');
      if (status >= 400 && !shouldStore(status)) return payload;
      return answerInstead(request, reply, failure.statusCode >= 500 ? failure : Errors.internal(error));
    }
  };

  /** The route's handler, run with the request's unit of work current. */
  const inUnit = (handler: RouteHandlerMethod): RouteHandlerMethod =>
    function (this: FastifyInstance, request, reply) {
      const claim = request.idempotencyClaim;
      return claim
        ? claim.unit.run(() => handler.call(this, request, reply))
        : handler.call(this, request, reply);
    };

  // Only POST routes carry these hooks: other requests do not pay for them.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST') || route.config?.idempotency === false) return;
    appendRouteHook(route, 'preHandler', claim);
    appendRouteHook(route, 'onSend', record);
    route.handler = inUnit(route.handler);
  });
}
