/**
 * The CLI's only way to the server: a fetch wrapper for the admin API. It unwraps `{data}` and
 * turns the error envelope into an AdminApiError whose one-line description carries the code and
 * the request id, so an operator can quote it and find the matching server log line.
 */

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

interface ErrorEnvelope {
  error: { code: string; message: string; requestId?: string };
}

/** The server answered with an error (or with something that is not the admin API). */
export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
  ) {
    super(message);
    this.name = 'AdminApiError';
  }

  /** `Error <CODE>: <message> (request <requestId>)`. */
  describe(): string {
    const request = this.requestId ? ` (request ${this.requestId})` : '';
    return `Error ${this.code}: ${this.message}${request}`;
  }
}

/** No HTTP answer at all: nothing listens at the URL, DNS failed, or the request timed out. */
export class ConnectionError extends Error {
  constructor(
    readonly baseUrl: string,
    reason: string,
  ) {
    super(
      `Cannot connect to the admin API at ${baseUrl} (${reason}). ` +
        'Is the server running? Point the CLI at it with --url or AGENCY_CRM_URL.',
    );
    this.name = 'ConnectionError';
  }
}

export interface AdminClientOptions {
  /** Server root, e.g. `http://127.0.0.1:3000`; a path prefix (behind a proxy) is kept. */
  baseUrl: string;
  token: string;
  timeoutMs?: number;
}

export interface AdminClient {
  readonly baseUrl: string;
  /** Sends one admin API request and returns the response's `data`. */
  request<T>(method: Method, path: string, body?: unknown): Promise<T>;
}

function isErrorEnvelope(value: unknown): value is ErrorEnvelope {
  const error = (value as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

/** The most specific reason undici gives for a failed fetch (`ECONNREFUSED`, `ENOTFOUND`, `bad port`...). */
function connectionReason(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  let reason = error instanceof Error ? error.message : String(error);
  let current: unknown = error;
  while (current instanceof Error) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
    reason = current.message;
    current = current.cause;
  }
  return reason;
}

export function createAdminClient(options: AdminClientOptions): AdminClient {
  const root = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  const timeoutMs = options.timeoutMs ?? 30_000;

  return {
    baseUrl: options.baseUrl,
    async request<T>(method: Method, path: string, body?: unknown): Promise<T> {
      const url = new URL(path.replace(/^\//, ''), root);
      const headers: Record<string, string> = {
        authorization: `Bearer ${options.token}`,
        accept: 'application/json',
      };
      // Only a request with a body says it is JSON: Fastify refuses an empty application/json body.
      if (body !== undefined) headers['content-type'] = 'application/json';

      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new ConnectionError(options.baseUrl, connectionReason(error));
      }

      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const headerRequestId = response.headers.get('x-request-id') ?? undefined;

      if (response.ok && parsed !== null && typeof parsed === 'object' && 'data' in parsed) {
        return (parsed as { data: T }).data;
      }
      if (isErrorEnvelope(parsed)) {
        const { code, message, requestId } = parsed.error;
        throw new AdminApiError(response.status, code, message, requestId ?? headerRequestId);
      }
      // Reached some other HTTP server (wrong --url, a proxy error page): say so instead of guessing.
      const excerpt = text.slice(0, 120).replace(/\s+/g, ' ').trim();
      throw new AdminApiError(
        response.status,
        'UNEXPECTED_RESPONSE',
        `HTTP ${response.status} from ${method} ${url.href} is not an admin API answer` +
          (excerpt ? `: "${excerpt}"` : ''),
        headerRequestId,
      );
    },
  };
}
