import { createHash } from 'node:crypto';
import { AjvCompiler, type BuildCompilerFromPool, type RouteDefinition } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';
import { annotationKeywords } from './schemas.ts';

type ValidatorFactory = (
  externalSchemas: unknown,
  options: { customOptions?: Record<string, unknown> },
) => (route: RouteDefinition) => unknown;

type TextValidator = ((data: unknown) => boolean) & { errors?: unknown[] | null };

type Serializer = (doc: unknown) => string;
type SerializerRoute = { method: string; url: string; httpStatus: string; schema?: unknown };

/*
 * Compiling ~110 routes' validators and response serializers was most of the cost of building an app
 * (~2.5 s). The compilers live for the process, so a second app on the same schemas (tests build
 * dozens) reuses them:
 * - validators: Fastify's Ajv compiler pools one Ajv per set of shared schemas and options, and Ajv
 *   keeps what it compiled per schema object;
 * - serializers: fast-json-stringify keeps nothing, so its output is kept here per schema text and
 *   set of shared schemas (most response schemas are `{ $ref }` objects made afresh for each app).
 * An app built again on the same schemas compiles nothing new.
 */
/**
 * The app's Ajv settings (Fastify's `ajv` option). `removeAdditional: false` and `allErrors`: an unknown
 * property is refused rather than silently dropped, and every failing field is reported; `verbose`: each
 * issue carries its schema, so `x-error-messages` can name the failure (error-handler.ts).
 */
export const AJV_OPTIONS = {
  customOptions: { removeAdditional: false, allErrors: true, verbose: true },
  plugins: [annotationKeywords],
};

const coercing = AjvCompiler() as unknown as ValidatorFactory;
const strict = AjvCompiler() as unknown as ValidatorFactory;
const serializers = new Map<string, Serializer>();
const selectSerializer = SerializerSelector();

/**
 * Query strings and path parameters arrive as text, so their validators coerce ("2" -> 2); JSON
 * bodies arrive typed, so theirs do not. With Fastify's default (coercion everywhere) a JSON
 * `null` sent to a nullable number became 0, a nullable string "", and `0` sent to a nullable
 * field became null: silent data changes instead of what the client sent.
 */
const bodyStrictValidators: ValidatorFactory = (externalSchemas, options) => {
  const forText = coercing(externalSchemas, options);
  const forBody = strict(externalSchemas, {
    ...options,
    customOptions: { ...options.customOptions, coerceTypes: false },
  });
  return (route) =>
    route.httpPart === 'body' ? forBody(route) : finiteOnly(forText(route) as TextValidator);
};

/**
 * Ajv coerces "1e309" and "Infinity" to Infinity and then skips minimum/maximum for a non-finite
 * number, so `?pageSize=1e309` passed as a valid integer and reached SQL (a 500). A coerced value
 * that is not finite is refused here, as the type error it is.
 */
function finiteOnly(validate: TextValidator): TextValidator {
  const checked: TextValidator = (data) => {
    const valid = validate(data);
    checked.errors = validate.errors;
    if (!valid || data === null || typeof data !== 'object') return valid;
    const issues = Object.entries(data as Record<string, unknown>).flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value]).some((v) => typeof v === 'number' && !Number.isFinite(v))
        ? [{ instancePath: `/${name}`, keyword: 'type', params: {}, message: 'must be a finite number' }]
        : [],
    );
    if (issues.length === 0) return true;
    checked.errors = issues;
    return false;
  };
  return checked;
}

/** What a compiled body validator reports: Ajv's issues of the last call, or null when it passed. */
export type BodyValidator = TextValidator;

/**
 * A JSON body schema compiled as the app compiles a route's body (AJV_OPTIONS, no coercion), for what
 * a service validates itself: each item of a batch (platform/http/batch.ts). The schema must stand
 * alone (no `$ref` to another named schema).
 */
export function compileBodyValidator(schema: object): BodyValidator {
  const compile = bodyStrictValidators({}, AJV_OPTIONS);
  return compile({ schema, method: 'POST', url: '', httpPart: 'body' } as RouteDefinition) as BodyValidator;
}

/** fast-json-stringify's compiler, remembering each serializer it built for the life of the process. */
function reusedSerializers(
  externalSchemas?: unknown,
  options?: object,
): (route: SerializerRoute) => Serializer {
  const compile = selectSerializer(externalSchemas, options);
  const context = createHash('sha256')
    .update(JSON.stringify([externalSchemas ?? null, options ?? null]))
    .digest('hex');
  return (route) => {
    const key = `${context} ${JSON.stringify(route.schema)}`;
    let serialize = serializers.get(key);
    if (!serialize) serializers.set(key, (serialize = compile(route)));
    return serialize;
  };
}

/** The validator and serializer compilers of every app (Fastify's `schemaController.compilersFactory`). */
export const schemaCompilers = {
  buildValidator: bodyStrictValidators as unknown as BuildCompilerFromPool,
  buildSerializer: reusedSerializers,
} as NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
