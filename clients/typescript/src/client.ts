import { ApiConnectionError, ApiError } from './errors.ts';
import { OPERATIONS, type Api, type ClientOperationId } from './generated/operations.ts';
import type { ErrorBody, OperationSpec, RateLimit, RequestOptions, ResponseInfo } from './types.ts';

export interface ClientOptions {
  /** A publishable (`service_pk_…`, browsers and the portal) or secret (`service_sk_…`, servers only) key. */
  apiKey: string;
  /** Where the service runs, e.g. `https://api.example-realty.com` (paths start with /v1). */
  baseUrl: string;
  /** Retries after the first attempt, on network errors, timeouts, 429, 5xx and in-progress 409. Default 2. */
  maxRetries?: number;
  /** Time limit of one attempt, reading the answer included. Default 30 000 ms. */
  timeoutMs?: number;
  /**
   * A `Retry-After` longer than this is not waited for: the error is thrown at once (a per-minute
   * limit can ask for up to 60 s). Default 60.
   */
  maxRetryAfterSeconds?: number;
  /** The `fetch` to use. Default: the platform's. */
  fetch?: typeof fetch;
}

/** The API client: one method per operation, grouped by operationId (`client.contacts.list()`). */
export type Client = Api;

interface Settings {
  apiKey: string;
  baseUrl: string;
  maxRetries: number;
  timeoutMs: number;
  maxRetryAfterSeconds: number;
  fetch: typeof fetch;
}

const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

/** A client of the agency-crm API. Methods are named from the operationIds of /v1/openapi.json. */
export function createClient(options: ClientOptions): Client {
  if (typeof options?.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new TypeError('createClient: apiKey is required (service_pk_… or service_sk_…)');
  }
  if (!isAbsoluteUrl(options.baseUrl)) {
    throw new TypeError(`createClient: baseUrl must be an absolute URL, got ${String(options.baseUrl)}`);
  }
  const settings: Settings = {
    apiKey: options.apiKey.trim(),
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    maxRetries: options.maxRetries ?? 2,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 60,
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
  };
  const client: Record<string, unknown> = {};
  for (const [id, spec] of Object.entries(OPERATIONS) as [ClientOperationId, OperationSpec][]) {
    const parts = id.split('.');
    const name = parts.pop() as string;
    let group = client;
    for (const part of parts) group = (group[part] ??= {}) as Record<string, unknown>;
    group[name] = (...args: unknown[]) => invoke(settings, id, spec, args);
    if (spec.cursor) group.iterate = (...args: unknown[]) => cursorItems(settings, id, spec, args);
  }
  return client as unknown as Client;
}

function isAbsoluteUrl(value: unknown): value is string {
  try {
    return typeof value === 'string' && new URL(value).protocol.startsWith('http');
  } catch {
    return false;
  }
}

/** Splits a method's arguments (path parameters, then query or body, then options) and calls. */
function invoke(settings: Settings, id: string, spec: OperationSpec, args: unknown[]) {
  const count = spec.pathParams.length;
  const input = spec.input === 'none' ? undefined : (args[count] as Record<string, unknown> | undefined);
  const options = (args[spec.input === 'none' ? count : count + 1] ?? {}) as RequestOptions;
  let path: string;
  try {
    path = fillPath(id, spec, args.slice(0, count));
  } catch (error) {
    // A method answers with a promise, also when its arguments are wrong.
    const failed = Promise.reject(error);
    return spec.paged ? pages(failed, () => failed) : failed;
  }
  const call = (query: Record<string, unknown> | undefined) =>
    request(settings, {
      method: spec.method,
      url: `${settings.baseUrl}${path}${queryString(query)}`,
      body: spec.input === 'body' ? input : undefined,
      idempotent: spec.idempotent,
      options,
    });
  if (!spec.paged) return call(spec.input === 'query' ? input : undefined);
  return pages(call(input), (next) => call({ ...input, ...next }));
}

function fillPath(id: string, spec: OperationSpec, values: unknown[]): string {
  return spec.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = values[spec.pathParams.indexOf(name)];
    if (typeof value !== 'string' || value === '') {
      throw new TypeError(`${id}: ${name} must be a non-empty string, got ${JSON.stringify(value)}`);
    }
    return encodeURIComponent(value);
  });
}

function queryString(query: Record<string, unknown> | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

interface Page {
  data: unknown[];
  /** Page mode, or cursor mode (`updatedAfter`, `cursor`: `nextCursor` null on the last page). */
  meta?: { page: number; totalPages: number } | { nextCursor: string | null };
}

/** The query of the page after `page`, or null after the last one. */
function nextOf(page: Page): { page: number } | { cursor: string } | null {
  const meta = page.meta;
  if (!meta || page.data.length === 0) return null;
  if ('nextCursor' in meta) return meta.nextCursor === null ? null : { cursor: meta.nextCursor };
  return meta.page >= meta.totalPages ? null : { page: meta.page + 1 };
}

/** The first page as a promise, and an async iterator over the items of it and every later page. */
function pages(
  first: Promise<unknown>,
  fetchPage: (next: { page: number } | { cursor: string }) => Promise<unknown>,
) {
  async function* items() {
    let current = (await first) as Page;
    for (;;) {
      yield* current.data;
      const next = nextOf(current);
      if (next === null) return;
      current = (await fetchPage(next)) as Page;
    }
  }
  return Object.assign(first, { [Symbol.asyncIterator]: items });
}

/** The oldest possible change: where a cursor list's `iterate()` starts when not told otherwise. */
const BEGINNING = '1970-01-01T00:00:00.000Z';

interface CursorPage {
  data: unknown[];
  meta: { hasMore: boolean; nextCursor: string | number | null };
}

/**
 * `x.iterate(...)`: every item of a cursor list, requesting the next page with `meta.nextCursor` as
 * `spec.cursor` until `hasMore` is false. A list in page mode by default (`cursor` lists) is put in
 * cursor mode from the beginning. Nothing is requested before the first `next()`.
 */
async function* cursorItems(settings: Settings, id: string, spec: OperationSpec, args: unknown[]) {
  const count = spec.pathParams.length;
  let query = { ...((args[count] ?? {}) as Record<string, unknown>) };
  if (spec.cursor === 'cursor' && query.cursor === undefined && query.updatedAfter === undefined)
    query.updatedAfter = BEGINNING;
  for (;;) {
    const page = (await invoke(settings, id, spec, [
      ...args.slice(0, count),
      query,
      args[count + 1],
    ])) as CursorPage;
    yield* page.data;
    if (!page.meta.hasMore || page.meta.nextCursor === null) return;
    query = { ...query, [spec.cursor as string]: page.meta.nextCursor };
  }
}

interface Call {
  method: string;
  url: string;
  body: unknown;
  /** The operation takes an Idempotency-Key (from the document). */
  idempotent: boolean;
  options: RequestOptions;
}

/** What one attempt produced: an answer, or a failure to get one. */
type Attempt =
  | { kind: 'answer'; response: Response; text: string }
  | { kind: 'failed'; error: unknown; timedOut: boolean };

/** One API call with its retries; resolves with the answer's JSON body, `lastResponse` attached. */
async function request(settings: Settings, call: Call): Promise<unknown> {
  const { options } = call;
  const maxRetries = options.maxRetries ?? settings.maxRetries;
  const headers: Record<string, string> = { 'X-API-Key': settings.apiKey, Accept: 'application/json' };
  // One key per call, the same on every retry: the server then runs the operation at most once.
  const idempotencyKey = call.idempotent ? (options.idempotencyKey ?? newIdempotencyKey()) : undefined;
  if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
  let body: string | FormData | undefined;
  // A FormData (an upload) is sent as it is: fetch writes its multipart Content-Type and boundary.
  if (call.body instanceof FormData) body = call.body;
  else if (call.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(call.body);
  }

  for (let attempt = 0; ; attempt += 1) {
    const outcome = await send(settings, call, headers, body, options);
    const retriesLeft = attempt < maxRetries;
    if (outcome.kind === 'failed') {
      if (!retriesLeft) {
        const cause = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
        throw new ApiConnectionError(
          `${call.method} ${call.url} ${outcome.timedOut ? 'timed out' : `failed (${cause})`} on each of ${attempt + 1} attempt(s)`,
          { cause: outcome.error, timedOut: outcome.timedOut },
        );
      }
      await sleep(backoffMs(attempt + 1), options.signal);
      continue;
    }

    const { response, text } = outcome;
    const json = parseJson(text);
    if (response.ok && typeof json === 'object' && json !== null) {
      return Object.defineProperty(json, 'lastResponse', {
        value: responseInfo(response, idempotencyKey),
        enumerable: false,
      });
    }
    const error = apiError(response, json, text);
    const delay = retryDelayMs(settings, response, error.retryAfter, attempt + 1);
    if (delay === undefined || !retriesLeft) throw error;
    await sleep(delay, options.signal);
  }
}

/** One attempt, bounded by the time limit and the caller's signal. */
async function send(
  settings: Settings,
  call: Call,
  headers: Record<string, string>,
  body: string | FormData | undefined,
  options: RequestOptions,
): Promise<Attempt> {
  const caller = options.signal;
  caller?.throwIfAborted();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs ?? settings.timeoutMs);
  const onAbort = () => controller.abort(caller?.reason);
  caller?.addEventListener('abort', onAbort, { once: true });
  try {
    const response = await settings.fetch(call.url, {
      method: call.method,
      headers,
      body,
      signal: controller.signal,
    });
    return { kind: 'answer', response, text: await response.text() };
  } catch (error) {
    // The caller's cancellation is not a failure to retry.
    if (caller?.aborted) throw caller.reason;
    return { kind: 'failed', error, timedOut };
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onAbort);
  }
}

/**
 * How long to wait before retrying an error answer, or undefined when it is not retried: 429 and
 * 5xx, and a 409 with Retry-After (the server sends it only while a request with the same
 * Idempotency-Key is in progress; a 409 for another body under the key would fail forever).
 */
function retryDelayMs(
  settings: Settings,
  response: Response,
  retryAfter: number | undefined,
  retry: number,
): number | undefined {
  const status = response.status;
  const retryable = status === 429 || status >= 500 || (status === 409 && retryAfter !== undefined);
  if (!retryable) return undefined;
  if (retryAfter === undefined) return backoffMs(retry);
  return retryAfter <= settings.maxRetryAfterSeconds ? retryAfter * 1000 : undefined;
}

/** Exponential backoff with jitter: ~0.5 s, 1 s, 2 s, ... at most 8 s. */
function backoffMs(retry: number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (retry - 1));
  return Math.round(ceiling * (0.5 + Math.random() / 2));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

function apiError(response: Response, json: unknown, text: string): ApiError {
  const envelope = (json as { error?: ErrorBody } | undefined)?.error;
  const common = {
    status: response.status,
    headers: response.headers,
    requestId: response.headers.get('x-request-id') ?? envelope?.requestId ?? undefined,
    rateLimit: rateLimitOf(response.headers),
    retryAfter: numberHeader(response.headers, 'retry-after'),
  };
  if (typeof envelope?.code === 'string' && typeof envelope.message === 'string') {
    return new ApiError({ ...common, code: envelope.code, message: envelope.message, error: envelope });
  }
  const snippet = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return new ApiError({
    ...common,
    code: 'UNEXPECTED_RESPONSE',
    message: `HTTP ${response.status} without the API's error envelope${snippet ? `: ${snippet}` : ''}`,
  });
}

function responseInfo(response: Response, idempotencyKey: string | undefined): ResponseInfo {
  return {
    status: response.status,
    headers: response.headers,
    requestId: response.headers.get('x-request-id') ?? undefined,
    rateLimit: rateLimitOf(response.headers),
    idempotencyKey,
    idempotentReplayed: response.headers.get('idempotent-replayed') === 'true',
  };
}

function rateLimitOf(headers: Headers): RateLimit | undefined {
  const limit = numberHeader(headers, 'x-ratelimit-limit');
  const remaining = numberHeader(headers, 'x-ratelimit-remaining');
  const reset = numberHeader(headers, 'x-ratelimit-reset');
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  return { limit, remaining, reset };
}

function numberHeader(headers: Headers, name: string): number | undefined {
  const value = headers.get(name);
  if (value === null || value.trim() === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 ? number : undefined;
}

/** 32 random hex characters (WebCrypto's getRandomValues: also in browsers outside https). */
function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `client-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}
