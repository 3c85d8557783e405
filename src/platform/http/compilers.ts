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
 * dozens) reuses them: Ajv and fast-json-stringify keep nothing across schema objects, and an app's
 * schemas are objects made afresh for it, so what they compile is kept here per schema text, set of
 * shared schemas and options. An app built again on the same schemas compiles nothing new.
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
  const context = contextKey(externalSchemas, options.customOptions);
  let forText: ((route: RouteDefinition) => unknown) | undefined;
  let forBody: ((route: RouteDefinition) => unknown) | undefined;
  return (route) =>
    reused(validators, `${context} ${route.httpPart} ${JSON.stringify(route.schema)}`, () => {
      if (route.httpPart === 'body') {
        forBody ??= strict(externalSchemas, {
          ...options,
          customOptions: { ...options.customOptions, coerceTypes: false },
        });
        return forBody(route);
      }
      forText ??= coercing(externalSchemas, options);
      return finiteOnly(forText(route) as TextValidator);
    });
};

const validators = new Map<string, unknown>();

const schemaTexts = new WeakMap<object, string>();

/**
 * A short key for a set of shared schemas and options. Fastify passes a fresh copy of the set for
 * every plugin context, but of the same schema objects: each one's text is computed once.
 */
function contextKey(externalSchemas: unknown, options: unknown): string {
  const hash = createHash('sha256').update(JSON.stringify(options ?? null));
  for (const [id, schema] of Object.entries((externalSchemas ?? {}) as Record<string, unknown>)) {
    let text = typeof schema === 'object' && schema !== null ? schemaTexts.get(schema) : undefined;
    if (text === undefined) {
      text = JSON.stringify(schema);
      if (typeof schema === 'object' && schema !== null) schemaTexts.set(schema, text);
    }
    hash.update(`\0${id}\0${text}`);
  }
  return hash.digest('hex');
}

function reused<T>(cache: Map<string, T>, key: string, build: () => T): T {
  let found = cache.get(key);
  if (found === undefined) cache.set(key, (found = build()));
  return found;
}

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
  const context = contextKey(externalSchemas, options);
  let compile: ((route: SerializerRoute) => Serializer) | undefined;
  return (route) =>
    reused(serializers, `${context} ${JSON.stringify(route.schema)}`, () => {
      compile ??= selectSerializer(externalSchemas, options);
      return compile(route);
    });
}

/** The validator and serializer compilers of every app (Fastify's `schemaController.compilersFactory`). */
export const schemaCompilers = {
  buildValidator: bodyStrictValidators as unknown as BuildCompilerFromPool,
  buildSerializer: reusedSerializers,
} as NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
