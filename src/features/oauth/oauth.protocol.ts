// OAuth 2.0 around the token endpoint, as hooks of its own plugin: the form body (RFC 6749 §4.4.2) and
// failures in OAuth's error format (§5.2), reshaped from the service's one error mapping
// (platform/errors) rather than mapped a second time, as the RESO routes reshape theirs into OData's.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, Errors, type ErrorCode } from '../../platform/errors/errors.ts';

const FORM = 'application/x-www-form-urlencoded';

/** RFC 6749's codes that are not `invalid_request`, which a failure of the endpoint may name itself. */
export type OAuthErrorCode = 'unsupported_grant_type' | 'invalid_scope';

/** A 400 whose OAuth code is its own (`unsupported_grant_type`, `invalid_scope`), naming the field. */
export function oauthRefusal(code: OAuthErrorCode, field: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', `${field} ${message}`, {
    details: [{ field, message }],
    extra: { oauthError: code },
  });
}

/**
 * The form's parameters: each once (RFC 6749 §3.2, a repeated one is a 400), one sent without a value
 * taken as omitted (§3.1). Built from entries, so `__proto__` is a parameter like any other.
 */
export function formParameters(text: string): Record<string, string> {
  const parameters = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) {
    if (value === '') continue;
    if (parameters.has(name)) {
      throw Errors.invalidField(
        `body.${name.slice(0, 64)}`,
        'is repeated: each parameter may be sent once (RFC 6749 §3.2)',
      );
    }
    parameters.set(name, value);
  }
  return Object.fromEntries(parameters);
}

/**
 * The plugin reads only forms: JSON and any other type are a 400 `invalid_request` naming the type wanted
 * (the service's own parsers are removed here, in this plugin only).
 */
export function registerTokenForm(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(FORM, { parseAs: 'string' }, (_request, text, done) => {
    try {
      done(null, formParameters(text as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser('*', (request, _payload, done) => {
    done(
      new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Type must be ${FORM} (RFC 6749 §4.4.2), not ${request.headers['content-type'] ?? 'none'}`,
      ),
      undefined,
    );
  });
}

/**
 * How each of the service's codes reads in OAuth (RFC 6749 §5.2): its status and code. A refused key
 * is OAuth's 400 `unauthorized_client`, not a 403; any code not listed keeps its status and is given in
 * lower case (`rate_limited` with its Retry-After).
 */
const OAUTH_ERRORS: Partial<Record<ErrorCode, { status: number; error: string }>> = {
  VALIDATION_ERROR: { status: 400, error: 'invalid_request' },
  UNSUPPORTED_MEDIA_TYPE: { status: 400, error: 'invalid_request' },
  UNAUTHORIZED: { status: 401, error: 'invalid_client' },
  FORBIDDEN: { status: 400, error: 'unauthorized_client' },
  SECRET_KEY_IN_BROWSER: { status: 400, error: 'unauthorized_client' },
};

/**
 * RFC 6749 §5.2: `error_description` is printable ASCII without `"` or `\`; the service's messages are
 * English, so only typography and quotes change.
 */
function asciiDescription(message: string): string {
  return message
    .replaceAll('…', '...')
    .replaceAll('§', 'section ')
    .replaceAll('"', "'")
    .replaceAll('\\', '/')
    .replace(/[^\x20-\x7e]/g, '?');
}

interface Envelope {
  error: { code: ErrorCode; message: string; oauthError?: OAuthErrorCode };
}

/** The service's envelope as OAuth's error answer: its status and body. */
export function oauthErrorOf(envelope: Envelope, status: number) {
  const { code, message, oauthError } = envelope.error;
  const mapped = OAUTH_ERRORS[code];
  return {
    status: mapped?.status ?? status,
    body: {
      error: oauthError ?? mapped?.error ?? code.toLowerCase(),
      error_description: asciiDescription(message),
    },
  };
}

/**
 * Before serialization (the route's response schemas describe OAuth's format): only the envelope the one
 * error handler wrote (errorSummary is its mark) is reshaped.
 */
async function reshapeErrors(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  const envelope = payload as Envelope | null;
  if (request.errorSummary === null || typeof envelope?.error?.code !== 'string') return payload;
  const { status, body } = oauthErrorOf(envelope, reply.statusCode);
  reply.code(status);
  return body;
}

/** Installs OAuth's form and error format on the token endpoint's plugin (call it inside that plugin). */
export function registerOAuth(app: FastifyInstance) {
  registerTokenForm(app);
  app.addHook('preSerialization', reshapeErrors);
}
