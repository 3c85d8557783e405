import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import fastifyMultipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { AppError, Errors } from '../errors/errors.ts';

/** One uploaded file, read whole (at most the route's limit) before the handler runs. */
export interface UploadedFile {
  bytes: Buffer;
  /** As the client named it: never trusted for anything but logs. */
  filename: string;
  /** As the client declared it: never trusted (the bytes decide what a file is). */
  mimetype: string;
  /** Hex SHA-256 of the bytes: also the body's value for the file field (validation, idempotency). */
  sha256: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The file of a single-file upload route (registerSingleFileUpload); null elsewhere. */
    upload: UploadedFile | null;
  }
}

export interface SingleFileUploadOptions {
  /** The file's field (`file`). */
  field: string;
  /** Largest file taken: 413 PAYLOAD_TOO_LARGE above it. */
  maxBytes: number;
  /** The text fields taken beside it (others reach validation, which refuses them by name). */
  textFields: readonly string[];
  /** Text fields that hold whole numbers: sent as text, validated as integers. */
  integerFields?: readonly string[];
}

/** Room for the form's boundaries, part headers and text fields beside the file. */
const FORM_OVERHEAD_BYTES = 64 * 1024;
const MAX_TEXT_FIELD_BYTES = 4096;

const tooLarge = (field: string, maxBytes: number) =>
  new AppError(
    'PAYLOAD_TOO_LARGE',
    `body.${field} is larger than the ${formatBytes(maxBytes)} limit (${maxBytes} bytes)`,
    { details: [{ field: `body.${field}`, message: `is larger than ${maxBytes} bytes` }] },
  );

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/** busboy's own rule for what the client meant as a file: a file name, or declared octet-stream. */
const sentAsFile = (part: MultipartFile) =>
  (part.filename as string | undefined) !== undefined || part.mimetype === 'application/octet-stream';

/**
 * A text field's bytes, refused as JSON's are (input-guard.ts): at most MAX_TEXT_FIELD_BYTES, and
 * UTF-8. busboy decodes a field by the charset its part declares (UTF-8 when none), turning invalid
 * bytes into U+FFFD: so text parts reach here as streams, and the bytes sent are checked.
 */
async function readTextField(part: MultipartFile): Promise<string> {
  const field = `body.${part.fieldname}`;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of part.file) {
    size += (chunk as Buffer).length;
    if (size > MAX_TEXT_FIELD_BYTES) {
      throw Errors.invalidField(field, `must not be longer than ${MAX_TEXT_FIELD_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  const bytes = Buffer.concat(chunks);
  if (!isUtf8(bytes)) throw Errors.invalidField(field, 'is not valid UTF-8');
  return bytes.toString('utf8');
}

/** @fastify/multipart's and busboy's failures in the envelope (their own statuses say 406/413 for 400s). */
function uploadError(error: unknown, options: SingleFileUploadOptions): unknown {
  if (error instanceof AppError) return error;
  switch ((error as { code?: string }).code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return tooLarge(options.field, options.maxBytes);
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return Errors.invalidField(
        'body',
        `has more fields than ${options.textFields.join(', ')} and one file`,
      );
    case 'FST_PROTO_VIOLATION':
      return Errors.invalidField('body', 'has a field name that is not allowed');
    default:
      return new AppError('VALIDATION_ERROR', 'body is not a readable multipart/form-data form', {
        details: [{ field: 'body', message: 'is not a readable multipart/form-data form' }],
        cause: error,
      });
  }
}

async function readForm(request: FastifyRequest, options: SingleFileUploadOptions) {
  const fields: Record<string, unknown> = {};
  let upload: UploadedFile | null = null;
  const parts = request.parts({
    // Every part as a stream of the bytes sent, text too (readTextField says why).
    isPartAFile: () => true,
    limits: {
      fileSize: options.maxBytes,
      parts: options.textFields.length + 5,
      headerPairs: 100,
    },
  });
  for await (const part of parts) {
    if (part.type !== 'file') continue; // never: isPartAFile above
    const name = part.fieldname;
    if (sentAsFile(part)) {
      if (name !== options.field) {
        part.file.resume();
        throw Errors.invalidField(
          `body.${name}`,
          `is a file; the file goes in the field \`${options.field}\``,
        );
      }
      if (upload !== null) {
        part.file.resume();
        throw Errors.invalidField('body', `must hold one file, in the field \`${options.field}\``);
      }
      const bytes = await part.toBuffer();
      upload = {
        bytes,
        filename: part.filename,
        mimetype: part.mimetype,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      };
      continue;
    }
    if (name === options.field) {
      part.file.resume();
      throw Errors.invalidField(`body.${name}`, 'must be a file part, not text');
    }
    const value = await readTextField(part);
    fields[name] =
      options.integerFields?.includes(name) && /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  }
  return { fields, upload };
}

/**
 * Readies `app` (an encapsulated plugin holding the upload route alone) for one multipart/form-data
 * file beside a few text fields, and returns the route's preValidation hook. The hook reads the form
 * (the file up to `maxBytes`: never more is buffered) into `request.upload`, and makes the body
 * `{...textFields, [field]: <SHA-256 of the file>}`: the route's schema validates the text fields,
 * and the idempotency plugin fingerprints the file through its hash.
 */
export async function registerSingleFileUpload(
  app: FastifyInstance,
  options: SingleFileUploadOptions,
): Promise<preValidationAsyncHookHandler> {
  await app.register(fastifyMultipart, { limits: { fileSize: options.maxBytes } });
  // Any other type reaches the hook, which names the one wanted (Fastify's own 415 says JSON).
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  app.decorateRequest('upload', null);

  return async function readUpload(request) {
    if (!request.isMultipart()) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Type must be multipart/form-data, with the file in the field \`${options.field}\``,
      );
    }
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > options.maxBytes + FORM_OVERHEAD_BYTES) {
      throw tooLarge(options.field, options.maxBytes);
    }
    let form;
    try {
      form = await readForm(request, options);
    } catch (error) {
      throw uploadError(error, options);
    }
    request.upload = form.upload;
    request.body = form.upload ? { ...form.fields, [options.field]: form.upload.sha256 } : form.fields;
  };
}
