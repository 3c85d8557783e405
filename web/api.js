// The public v1 API from a browser: one function per call the page makes, all through `request`.
// Copy this file into an agency website as it is: it needs only `fetch` and a publishable key.

/** An API answer that is not 2xx, or no answer at all (network, CORS). */
export class ApiError extends Error {
  constructor(status, body, headers) {
    const error = body?.error ?? {};
    super(error.message ?? `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = error.code ?? (status === 0 ? 'NETWORK_ERROR' : 'HTTP_ERROR');
    /** Validation failures: [{field: 'body.phone', message}] */
    this.details = Array.isArray(error.details) ? error.details : [];
    this.requestId = error.requestId ?? headers?.get('x-request-id') ?? null;
    /** Seconds to wait, from Retry-After (429, and 409 while an idempotent request is in progress). */
    const retryAfter = Number(headers?.get('retry-after'));
    this.retryAfter = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null;
  }
}

/** An Idempotency-Key: 8-128 characters of [a-zA-Z0-9._:-]; one per user action, reused on retry. */
export function newIdempotencyKey() {
  if (globalThis.crypto?.randomUUID) return `web-${crypto.randomUUID()}`;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function queryString(query) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * A client bound to one API base URL ('' = the page's own origin) and one publishable key.
 * Every method resolves with the response body's `data` or throws an ApiError.
 */
export function createClient({ baseUrl, key }) {
  const base = (baseUrl ?? '').replace(/\/+$/, '');

  async function request(method, path, { query, body, idempotencyKey } = {}) {
    const headers = { 'X-API-Key': key };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    let response;
    try {
      response = await fetch(`${base}${path}${queryString(query)}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        mode: 'cors',
        credentials: 'omit',
      });
    } catch {
      throw new ApiError(0, {
        error: {
          message: `The API at ${base || location.origin} did not answer (offline, wrong address, or CORS refused).`,
        },
      });
    }
    const text = await response.text();
    let parsed = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!response.ok) throw new ApiError(response.status, parsed, response.headers);
    return parsed;
  }
  const data = async (...args) => (await request(...args))?.data;

  return {
    portal: () => data('GET', '/v1/portal'),
    filters: () => data('GET', '/v1/filters'),
    /** A page of listings: {items, meta: {total, page, pageSize, totalPages}} */
    searchProperties: async (query) => {
      const answer = await request('GET', '/v1/properties', { query });
      return { items: answer.data, meta: answer.meta };
    },
    getProperty: (id) => data('GET', `/v1/properties/${encodeURIComponent(id)}`),
    submitLead: (body, idempotencyKey) => data('POST', '/v1/leads', { body, idempotencyKey }),
    requestVisit: (body, idempotencyKey) => data('POST', '/v1/leads/schedule', { body, idempotencyKey }),
    // The three booking answers are double-wrapped ({data: {data: ...}}), as SPEC.md shows.
    bookingAgents: async () => (await data('GET', '/v1/booking/agents')).data,
    availability: async (slug, month, year) =>
      (await data('GET', `/v1/booking/${encodeURIComponent(slug)}/availability`, { query: { month, year } }))
        .data,
    book: async (slug, body, idempotencyKey) =>
      (await data('POST', `/v1/booking/${encodeURIComponent(slug)}`, { body, idempotencyKey })).data,
    finder: (body, idempotencyKey) => data('POST', '/v1/finder', { body, idempotencyKey }),
    /** Analytics: fire and forget; the answer does not confirm storage anyway. */
    track: (type, propertyId) =>
      data('POST', '/v1/events', {
        body: {
          type,
          ...(propertyId ? { propertyId } : {}),
          ...(document.referrer ? { referrer: document.referrer.slice(0, 2048) } : {}),
        },
      }).catch(() => undefined),
  };
}
