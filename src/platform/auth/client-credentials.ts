// OAuth 2.0 client authentication (RFC 6749 §2.3.1) at a token endpoint (a route declaring
// `auth.clientCredentials`): the client is an API key, its `client_id` the key's id and its
// `client_secret` the secret key itself (decision 0262). Read once the form body is parsed.
import type { FastifyRequest } from 'fastify';
import { Errors } from '../errors/errors.ts';

/** The client a token request names: the key's id (`client_id`) and the secret key (`client_secret`). */
export interface ClientCredentials {
  id: string;
  key: string;
}

/** A credential of RFC 6749 §2.3.1, form-encoded inside HTTP Basic: `+` is a space, `%XX` a byte. */
function formDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

/** `Authorization: Basic <base64 of id:secret>`, or null when the request has no Basic credentials. */
function basicCredentials(request: FastifyRequest): ClientCredentials | null {
  const header = request.headers.authorization;
  const match = /^Basic\s+(\S*)\s*$/i.exec(Array.isArray(header) ? (header[0] ?? '') : (header ?? ''));
  if (!match) return null;
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // Basic credentials that are not `id:secret`: the client tried to authenticate and failed.
  if (colon === -1) throw Errors.invalidKey();
  return { id: formDecoded(decoded.slice(0, colon)), key: formDecoded(decoded.slice(colon + 1)) };
}

/**
 * The key a token request authenticates with: HTTP Basic (`client_id:client_secret`) or the form's
 * `client_id` and `client_secret`, never both (RFC 6749 §2.3: one method per request, 400). No
 * credentials at all is a 401 (invalid_client); a secret without its `client_id` a 400.
 */
export function clientCredentialsOf(request: FastifyRequest): ClientCredentials {
  const form = (request.body ?? {}) as Record<string, unknown>;
  const secret = typeof form.client_secret === 'string' ? form.client_secret : undefined;
  const id = typeof form.client_id === 'string' ? form.client_id : undefined;
  const basic = basicCredentials(request);
  if (basic !== null) {
    if (secret !== undefined) {
      throw Errors.invalidField(
        'body.client_secret',
        'must not be sent with HTTP Basic credentials: authenticate one way (RFC 6749 §2.3)',
      );
    }
    if (id !== undefined && id !== basic.id) {
      throw Errors.invalidField('body.client_id', 'is not the client_id of the Authorization header');
    }
    return basic;
  }
  if (secret === undefined) throw Errors.missingClientCredentials();
  if (id === undefined) {
    throw Errors.invalidField('body.client_id', "is required with client_secret: the key's id (key_…)");
  }
  return { id, key: secret };
}
