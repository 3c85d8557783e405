// Logs carry no credential (issue 36, decision 0240): what a URL carries is a credential when it is a
// route's `:token` parameter (calendar and feed subscriptions, visitor links) or a `token` query
// parameter (the console's one-time link), and query values can carry personal data (`q`, `email`).
// A request's URL reaches the service's log and request_logs only through loggedUrl.

export const REDACTED = '[redacted]';

/**
 * Query parameters whose values are logged: paging, sorting, output options and the enumerations and
 * flags lists filter by, none of which can hold a person's data or a secret. Every other value is
 * redacted, `token`, searches (`q`), contact fields, free-text filters and dates among them, and so
 * are cursors and `$skiptoken`: they are opaque but may encode the sort value they resume at (a name).
 */
export const LOGGED_QUERY_VALUES: ReadonlySet<string> = new Set([
  'page',
  'pageSize',
  'limit',
  'sortBy',
  'sortOrder',
  'order',
  'mode',
  'status',
  'type',
  'include',
  'expand',
  'format',
  'lang',
  'language',
  'transactionType',
  'intent',
  'outcome',
  'featured',
  'publishedOnPortal',
  'optedOut',
  'active',
  'bookable',
  '$top',
  '$skip',
  '$count',
  '$select',
  '$orderby',
]);

/** A name that reads as a parameter's; anything else (`?alice@example.com`) is data sent as a name. */
const PARAMETER_NAME = /^[\w$.[\]-]{0,64}$/;
/**
 * What an allowlisted value looks like (`createdAt`, `desc`, `20`, `pt-BR`, `ListPrice desc`). A value
 * that does not, even under an allowlisted name, is redacted: a client may send anything anywhere.
 */
const PLAIN_VALUE = /^[\w .,-]{0,64}$/;
/** `:token` as a whole parameter name, as find-my-way reads it: `:token.ics` yes, `:tokenId` no. */
const TOKEN_PARAMETER = /:token(?![\w$])/;
const TOKEN = ':token';

/**
 * `url` (path and query, as Fastify's `request.url`) as logs may show it. `routePattern` is the matched
 * route's (`request.routeOptions.url`; undefined when no route matched): each of its `:token`
 * parameters becomes `[redacted]` in the path, keeping the segment's static text
 * (`/calendars/[redacted].ics`). In the query every parameter's name stays, and its value only when
 * the name is in LOGGED_QUERY_VALUES. A URL with neither is returned as it is, nothing allocated:
 * that is every request of most routes.
 */
export function redactUrl(url: string, routePattern: string | undefined): string {
  const queryAt = url.indexOf('?');
  const hasToken = routePattern !== undefined && routePattern.includes(TOKEN);
  if (queryAt === -1 && !hasToken) return url;
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const shownPath = hasToken ? redactPath(path, routePattern) : path;
  return queryAt === -1 ? shownPath : `${shownPath}?${redactQuery(url.slice(queryAt + 1))}`;
}

/** The methods a path may have a route of when the request's own method has none (a 405, a preflight). */
const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** What loggedUrl reads of a Fastify request; a raw IncomingMessage has only `url`. */
export interface LoggedRequest {
  url: string;
  method?: string;
  params?: unknown;
  is404?: boolean;
  routeOptions?: { url?: string };
  server?: {
    findRoute(route: { method: (typeof ROUTE_METHODS)[number]; url: string }): { params: unknown } | null;
  };
}

/**
 * A request's URL as logs show it: `url` is `request.url` or its path alone. A route with a `token`
 * parameter gives redactUrl its pattern (read only then: `routeOptions` builds an object on every
 * read, `params` is already there). A request no route of its method matched (a 405, or a CORS
 * preflight, which the `/*` OPTIONS route answers) asks the router for the path's route of another
 * method: a token found there is redacted where it stands in the path.
 */
export function loggedUrl(request: LoggedRequest, url: string = request.url): string {
  const params = request.params as Record<string, unknown> | null | undefined;
  if (params?.token !== undefined) return redactUrl(url, request.routeOptions?.url);
  const shown = redactUrl(url, undefined);
  if (!(request.is404 === true || request.method === 'OPTIONS') || !request.server) return shown;
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  for (const method of ROUTE_METHODS) {
    const token = (request.server.findRoute({ method, url: path })?.params as Record<string, unknown>)?.token;
    if (typeof token === 'string' && token !== '') {
      const shownPath = redactValue(path, token);
      return queryAt === -1 ? shownPath : shownPath + shown.slice(shown.indexOf('?'));
    }
  }
  return shown;
}

/**
 * `path` with each segment that holds `value` (as the router decoded it) redacted: the value alone,
 * or the whole segment when the value is encoded there (or the segment cannot be decoded).
 */
function redactValue(path: string, value: string): string {
  return path
    .split('/')
    .map((segment) => {
      if (segment.includes(value)) return segment.replaceAll(value, REDACTED);
      return decoded(segment)?.includes(value) === false ? segment : REDACTED;
    })
    .join('/');
}

function redactPath(path: string, pattern: string): string {
  const patternSegments = pattern.split('/');
  const segments = path.split('/');
  // Only a wildcard makes the two differ in length (no route with a token has one): the pattern itself
  // then shows which route it was, its credentials redacted.
  const aligned = segments.length === patternSegments.length;
  for (let i = 0; i < patternSegments.length; i += 1) {
    const patternSegment = patternSegments[i] ?? '';
    const at = patternSegment.search(TOKEN_PARAMETER);
    if (at === -1) continue;
    if (!aligned) patternSegments[i] = REDACTED;
    else segments[i] = redactSegment(segments[i] ?? '', patternSegment, at);
  }
  return aligned ? segments.join('/') : patternSegments.join('/');
}

/**
 * One path segment whose pattern holds `:token` at `at`: the static text around the parameter stays
 * (`.ics` of `:token.ics`); a segment whose pattern has another parameter or a regular expression
 * beside it, or that does not read as its pattern, is redacted whole.
 */
function redactSegment(segment: string, patternSegment: string, at: number): string {
  const prefix = patternSegment.slice(0, at);
  const suffix = patternSegment.slice(at + TOKEN.length);
  const plain = !/[:(*]/.test(prefix) && !/[:(*]/.test(suffix);
  const reads =
    segment.length >= prefix.length + suffix.length && segment.startsWith(prefix) && segment.endsWith(suffix);
  return plain && reads ? `${prefix}${REDACTED}${suffix}` : REDACTED;
}

/** A malformed escape decodes to null (shown redacted). */
function decoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** `+` is a space in a query. */
const decodeQueryPart = (part: string) => decoded(part.replaceAll('+', ' '));

/** Each `name=value` in order (repeated names each time), decoded names compared with the allowlist. */
function redactQuery(query: string): string {
  const shown: string[] = [];
  for (const pair of query.split('&')) {
    const equals = pair.indexOf('=');
    const name = decodeQueryPart(equals === -1 ? pair : pair.slice(0, equals));
    const shownName = name !== null && PARAMETER_NAME.test(name) ? name : REDACTED;
    if (equals === -1) {
      shown.push(shownName);
      continue;
    }
    const rawValue = pair.slice(equals + 1);
    const value = name !== null && LOGGED_QUERY_VALUES.has(name) ? decodeQueryPart(rawValue) : null;
    shown.push(`${shownName}=${value !== null && PLAIN_VALUE.test(value) ? rawValue : REDACTED}`);
  }
  return shown.join('&');
}
