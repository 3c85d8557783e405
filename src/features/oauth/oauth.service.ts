import type { Caller } from '../../platform/auth/caller.ts';
import { oauthRefusal } from './oauth.protocol.ts';
import type { OAuthToken, TokenRequest } from './oauth.schema.ts';

/**
 * A client-credentials grant (RFC 6749 §4.4) for the key the auth hook admitted: the access token is
 * that key (decision 0262), so it carries the key's scopes, expiry, revocation and limits. A `scope`
 * may only name scopes the key holds; the grant is still the whole key.
 */
export function issueToken(caller: Caller, key: string, form: TokenRequest, now = Date.now()): OAuthToken {
  if (form.grant_type !== 'client_credentials') {
    throw oauthRefusal(
      'unsupported_grant_type',
      'body.grant_type',
      `${form.grant_type.slice(0, 64)} is not supported: this server issues client_credentials only`,
    );
  }
  const held: readonly string[] = caller.scopes;
  const missing = (form.scope ?? '').split(' ').filter((scope) => scope !== '' && !held.includes(scope));
  if (missing.length > 0) {
    throw oauthRefusal(
      'invalid_scope',
      'body.scope',
      `names ${missing.slice(0, 10).join(' ')}, which this key does not hold (it holds ${held.join(' ') || 'none'})`,
    );
  }
  const expiresAt = caller.expiresAt?.getTime();
  return {
    access_token: key,
    token_type: 'Bearer',
    ...(expiresAt === undefined ? {} : { expires_in: Math.max(0, Math.floor((expiresAt - now) / 1000)) }),
    scope: held.join(' '),
  };
}
