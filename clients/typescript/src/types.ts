/**
 * Types of the client, derived from the generated OpenAPI types: an operation's path parameters,
 * query, body and answer are looked up by its operationId, so they follow the server's schemas.
 */
import type { components, operations, webhooks } from './generated/openapi.ts';
import type { ClientOperationId } from './generated/operations.ts';

/** How the runtime builds one operation's request (one generated entry per operationId). */
export interface OperationSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path template with `{name}` parameters, filled from the method's leading arguments in order. */
  path: string;
  pathParams: readonly string[];
  /** What the argument after the path parameters is: the query string, the JSON body, or nothing. */
  input: 'query' | 'body' | 'none';
  /** A list that takes `page`/`pageSize` and answers `meta.totalPages`: the result is also async-iterable. */
  paged: boolean;
  /** A list that follows `meta.nextCursor` (sent back as this parameter): its namespace has `iterate()`. */
  cursor: 'cursor' | 'after' | null;
  /** The document declares `Idempotency-Key` on it: every call sends one, the same on each retry. */
  idempotent: boolean;
}

/** Query parameters of an operation. */
export type Query<K extends ClientOperationId> = NonNullable<operations[K]['parameters']['query']>;

/** JSON body of an operation; a `FormData` for a multipart upload (a listing's photo). */
export type Body<K extends ClientOperationId> =
  NonNullable<operations[K]['requestBody']> extends { content: { 'application/json': infer B } }
    ? B
    : NonNullable<operations[K]['requestBody']> extends { content: { 'multipart/form-data': unknown } }
      ? FormData
      : never;

type Responses<K extends ClientOperationId> = operations[K]['responses'];
type SuccessStatus = 200 | 201 | 202;

/** The JSON body of an operation's 2xx answer (`{data}`, or `{data, meta}` for lists). */
export type Result<K extends ClientOperationId> = {
  [S in SuccessStatus & keyof Responses<K>]: Responses<K>[S] extends {
    content: { 'application/json': infer T };
  }
    ? T
    : never;
}[SuccessStatus & keyof Responses<K>];

/** One element of a paged list's `data`. */
export type Item<K extends ClientOperationId> = Result<K> extends { data: readonly (infer I)[] } ? I : never;

/** `X-RateLimit-*` headers of an answer (seconds until the window resets), when the server sent them. */
export interface RateLimit {
  limit: number;
  remaining: number;
  reset: number;
}

/** What the HTTP answer said besides its body. */
export interface ResponseInfo {
  status: number;
  headers: Headers;
  /** `X-Request-Id`: quote it to support. */
  requestId: string | undefined;
  rateLimit: RateLimit | undefined;
  /** The Idempotency-Key sent (POST only), generated unless given in the options. */
  idempotencyKey: string | undefined;
  /** `Idempotent-Replayed: true`: the answer is the stored one of an earlier request with the same key. */
  idempotentReplayed: boolean;
}

/** An operation's answer body, with `lastResponse` (not enumerable: JSON.stringify leaves it out). */
export type ApiResult<K extends ClientOperationId> = Result<K> & { readonly lastResponse: ResponseInfo };

/**
 * A paged list: awaiting it gives the requested page; `for await` walks every item of every page
 * from the requested one on (the first page is the same request).
 */
export type PagePromise<K extends ClientOperationId> = Promise<ApiResult<K>> & AsyncIterable<Item<K>>;

/** Per-call options. */
export interface RequestOptions {
  /** Idempotency-Key of a POST. Default: a random key per call, the same on each of its retries. */
  idempotencyKey?: string;
  /** Cancels the call, its retries and the waits between them. */
  signal?: AbortSignal;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
}

/** The error envelope's `error.code`. */
export type ErrorCode = components['schemas']['ErrorResponse']['error']['code'];

/** One `error.details` entry of a 400: `{field, message}`. */
export type ErrorDetail = components['schemas']['ErrorDetail'];

/** The error envelope's `error` object (`reason` and `windowExpiresAt` on a messaging 409, ...). */
export type ErrorBody = components['schemas']['ErrorResponse']['error'];

/** Every event type a webhook delivery can carry. */
export type WebhookEventType = keyof webhooks & string;

/** A webhook delivery's envelope; `type` tells the variants apart (`event.type === 'deal.won'`). */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = {
  [K in T]: webhooks[K]['post'] extends { requestBody: { content: { 'application/json': infer E } } }
    ? E
    : never;
}[T];

/** Named schemas of the API (`Schemas['Contact']`, `Schemas['PortalProperty']`, ...). */
export type Schemas = components['schemas'];
