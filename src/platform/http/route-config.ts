import type { KeyType } from '../auth/keys.ts';
import type { ConsoleSession } from '../auth/console-sessions.ts';
import type { Caller, TokenCredentialKind } from '../auth/caller.ts';
import type { Scope } from '../auth/scopes.ts';
import type { RateLimitState } from '../rate-limit/rate-limits.ts';

/**
 * What a v1 route declares about who may call it. The auth hook (platform/auth/auth.plugin.ts) is
 * the only code that enforces it; routes never check keys themselves.
 */
export interface RouteAuth {
  /** Scope the key must hold; null for routes any valid key may call (GET /v1/me). */
  scope: Scope | null;
  /** Key types admitted. Routes open to publishable keys also answer CORS preflights. */
  keyTypes: readonly KeyType[];
  /** Minimum access level (3 = support approved). Default 1. */
  accessLevel?: 1 | 2 | 3;
  /** A mutation: write limits apply, read-only organizations get 402, read-only keys 403. */
  write: boolean;
  /**
   * The key comes in `Authorization: Bearer <key>` instead of `X-API-Key` (the MCP endpoint, SPEC.md):
   * `X-API-Key` is then refused, and every 401 carries `WWW-Authenticate: Bearer`.
   */
  bearer?: boolean;
  /**
   * The key may also come as `Authorization: Bearer <key>` beside `X-API-Key` (RESO's Web API, whose
   * clients speak OAuth2): the same key, looked up and checked the same way; a 401 names both schemes.
   */
  alsoBearer?: boolean;
  /**
   * An OAuth 2.0 token endpoint (RFC 6749 §4.4, decision 0262): the key comes as the client's
   * credentials, HTTP Basic `client_id:client_secret` or the form's `client_id` and `client_secret` (the
   * key's id and the key), and is checked once the form body is parsed, the same way as any key.
   */
  clientCredentials?: boolean;
  /**
   * A batch write (decision 0183): `items` names the body's array; every `itemsPerWritePoint` items,
   * rounded up, count one write point against `key-writes` and `organization-writes` (the first with
   * the request itself, the rest once the body is validated). The `key` policy counts the request once.
   */
  batch?: { items: string; itemsPerWritePoint: number };
}

/**
 * A route on its way out (RFC 9745 `Deprecation`, RFC 8594 `Sunset`): every answer then carries both
 * headers (and a `Link` to what replaces it), and the document marks the operation `deprecated`.
 */
export interface RouteDeprecation {
  /** When it was deprecated (YYYY-MM-DD, UTC midnight). */
  since: string;
  /** When it stops answering (YYYY-MM-DD, UTC midnight); at least 6 months after `since`. */
  sunset: string;
  /** Where the replacement or the migration guide is described. */
  link?: string;
}

export const ANY_KEY: readonly KeyType[] = ['publishable', 'secret', 'read_only_secret'];
export const SECRET_KEYS: readonly KeyType[] = ['secret', 'read_only_secret'];
export const PUBLISHABLE_KEY: readonly KeyType[] = ['publishable'];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A v1 route called with an API key. */
    auth?: RouteAuth;
    /** An operator route called with the admin bearer token. */
    admin?: boolean;
    /** Reachable without any credential (health, OpenAPI, docs). */
    public?: boolean;
    /**
     * A developer-console route: the console session cookie, plus Origin and X-CSRF-Token on changes.
     * `write`: a change (a read-only organization gets 402).
     */
    console?: { write: boolean };
    /**
     * A route whose URL carries its credential in the `:token` path parameter (a feed, a calendar
     * subscription, a visitor's manage link), resolved by the feature that issues it (manifest
     * `credentials`). `write`: a change (a read-only organization gets 402).
     */
    credential?: { kind: TokenCredentialKind; write: boolean };
    /**
     * `false`: a POST that is not a resource creation (MCP's JSON-RPC) takes no Idempotency-Key. Every
     * other POST honours it, scoped to the caller's organization or the operator's own scope.
     */
    idempotency?: boolean;
    /** The body may be left out: it is then validated as `{}` (a POST whose fields all have defaults). */
    optionalBody?: boolean;
    /** Deprecated: Deprecation and Sunset headers on every answer, `deprecated` in the document. */
    deprecated?: RouteDeprecation;
    /**
     * `'portal'`: a public read whose answer depends only on the organization's portal data and the
     * request (response-cache.ts): ETag, 304, Cache-Control, Vary, and the in-process cache.
     * `'no-store'`: an answer that hands out a credential (an OAuth token): `Cache-Control: no-store`
     * and `Pragma: no-cache` on every answer, as RFC 6749 §5.1 requires (conventions.ts).
     */
    cache?: 'portal' | 'no-store';
  }
  interface FastifyRequest {
    /** Set by the auth hook: every credential kind (API key, console, URL token, operator on an organization). */
    caller: Caller | null;
    /** Organization an Idempotency-Key is scoped to, set by the auth hook or admin routes. */
    idempotencyScope: string | null;
    /** What the auth hook counted against the key's rate limits (its headers describe it). */
    rateLimit: RateLimitState | null;
    /** Set by the auth hook on console routes. */
    consoleSession: ConsoleSession | null;
  }
}
