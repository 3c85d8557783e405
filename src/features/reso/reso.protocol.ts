// The OData protocol around the RESO routes, as hooks of the RESO plugin only: version negotiation
// (OData-Version, OData-MaxVersion), content negotiation (Accept, $format), the OData-Version header
// on every answer, and failures in OData's JSON error format (OData JSON 4.0 §21), reshaped from the
// service's one error mapping (platform/errors) rather than mapped a second time.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { Errors } from '../../platform/errors/errors.ts';

/** The protocol version every RESO answer states (docs/reso.md: why 4.0 and not 4.01). */
export const ODATA_VERSION = '4.0';
/** The request versions whose syntax the service reads: the 4.0 it speaks, and 4.01's common part. */
const READABLE_VERSIONS = ['4.0', '4.01'];

const firstHeader = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** `4.01` -> [4, 1]; null when it is not MAJOR.MINOR. */
function versionOf(text: string): [number, number] | null {
  const m = /^\s*(\d+)\.(\d+)\s*$/.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/**
 * OData-Version on a request names the version its syntax follows: only 4.0 and 4.01 are read (a 400
 * otherwise, as RESO's Web API Core 2.2.1 table has it). OData-MaxVersion is the highest the client
 * understands: below 4.0 it cannot read any answer of ours (400).
 */
function negotiateVersion(request: FastifyRequest): void {
  const version = firstHeader(request.headers['odata-version']);
  if (version !== undefined && !READABLE_VERSIONS.includes(version.trim())) {
    throw Errors.invalidField(
      'header.OData-Version',
      `${version} is not supported: this service speaks OData ${ODATA_VERSION} (requests may say 4.0 or 4.01)`,
    );
  }
  const max = firstHeader(request.headers['odata-maxversion']);
  if (max !== undefined) {
    const parsed = versionOf(max);
    if (parsed === null || parsed[0] < 4) {
      throw Errors.invalidField(
        'header.OData-MaxVersion',
        `${max} is below ${ODATA_VERSION}, the only version this service answers in`,
      );
    }
  }
}

/** The media types of `$format` (OData's short names too) and what each route answers in. */
const FORMATS: Record<string, string> = {
  json: 'application/json',
  'application/json': 'application/json',
  xml: 'application/xml',
  'application/xml': 'application/xml',
};

/**
 * `$format` (when given) or `Accept` must allow what the route answers in: a 406 NOT_ACCEPTABLE that
 * says what it is, rather than JSON to a client that asked for XML. OData's format parameters
 * (`application/json;odata.metadata=minimal`) are parameters of the same media type.
 */
function negotiateFormat(request: FastifyRequest, produces: string): void {
  const format = (request.query as Record<string, unknown> | undefined)?.$format;
  if (typeof format === 'string') {
    const wanted = FORMATS[format.split(';')[0]?.trim().toLowerCase() ?? ''];
    if (wanted !== produces) {
      throw Errors.notAcceptable(`$format=${format} is not available here: this resource is ${produces}`);
    }
    return;
  }
  if (request.headers.accept === undefined) return;
  if (new Negotiator(request.raw).mediaType([produces]) === undefined) {
    throw Errors.notAcceptable(
      `Accept: ${request.headers.accept} allows no answer of this resource: it is ${produces}`,
    );
  }
}

/** `query.$filter` -> `$filter`, `header.OData-Version` -> `OData-Version`: what OData calls the target. */
const targetOf = (field: string) => field.replace(/^(query|header|path)\./, '');

interface Envelope {
  error: {
    code: string;
    message: string;
    requestId: string;
    details?: { field: string; message: string }[];
    [extra: string]: unknown;
  };
}

/**
 * The service's envelope in OData's error format: `code` and `message` as they were, `target` (the
 * option or header at fault) and `details` as `[{code, target, message}]`; `requestId` stays beside
 * them (and in X-Request-Id), as does any extra member of the failure.
 */
export function odataErrorOf(envelope: Envelope) {
  const { code, message, requestId, details, ...extra } = envelope.error;
  const target = details?.[0]?.field;
  return {
    error: {
      code,
      message,
      ...(target === undefined ? {} : { target: targetOf(target) }),
      details: (details ?? []).map((detail) => ({
        code,
        target: targetOf(detail.field),
        message: detail.message,
      })),
      requestId,
      ...extra,
    },
  };
}

/**
 * Before serialization (the route's response schemas describe OData's format): only the envelope the one
 * error handler wrote (errorSummary is its mark) is reshaped.
 */
async function reshapeErrors(request: FastifyRequest, _reply: FastifyReply, payload: unknown) {
  const envelope = payload as Envelope | null;
  if (request.errorSummary === null || typeof envelope?.error?.code !== 'string') return payload;
  return odataErrorOf(envelope);
}

async function versionHeader(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  reply.header('odata-version', ODATA_VERSION);
  return payload;
}

/**
 * Installs the OData protocol on the RESO plugin's routes (call it inside the encapsulated plugin).
 * `producesOf` says what a route answers in (application/json, or application/xml for $metadata).
 */
export function registerOData(app: FastifyInstance, producesOf: (url: string) => string | null) {
  app.addHook('preValidation', async (request) => {
    negotiateVersion(request);
    const produces = producesOf(request.routeOptions.url ?? '');
    if (produces !== null) negotiateFormat(request, produces);
  });
  app.addHook('preSerialization', reshapeErrors);
  app.addHook('onSend', versionHeader);
}
