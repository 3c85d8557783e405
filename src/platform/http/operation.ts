import { Type, type Static, type TObject, type TSchema } from '@fastify/type-provider-typebox';
import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import { callerOf } from '../auth/auth.plugin.ts';
import type { Caller } from '../auth/caller.ts';
import type { RouteAuth } from './route-config.ts';

/**
 * Where an operation is offered, and to which credential (decision 0241). An operation is declared once
 * (its id, schemas and handler: one service call) and mounted on each surface; mounts differ only in
 * the credential, their tags and the sentence that names the credential.
 * - `v1`: `/v1` + the operation's path, with the route's API-key rules (`auth`).
 * - `admin`: `/admin/v1/organizations/{orgId}` + the path, the operator's bearer token; operationId
 *   `admin.` + the operation's id.
 */
export type OperationMount =
  | { on: 'v1'; auth: RouteAuth; tags: readonly string[]; credential?: string }
  | { on: 'admin'; tags: readonly string[]; credential?: string };

/** A v1 mount for API keys: the description's first sentence names the key it takes. */
export const keyMount = (auth: RouteAuth, tags: readonly string[]): OperationMount => ({
  on: 'v1',
  auth,
  tags,
});
/** The operator's mount under /admin/v1/organizations/{orgId}. */
export const adminMount = (tags: readonly string[]): OperationMount => ({ on: 'admin', tags });

/** The sentence that names the key a route takes: "Secret key with `<scope>`, access level 3." */
export function keySentence(auth: RouteAuth): string {
  const types = auth.keyTypes;
  const who = types.includes('publishable')
    ? types.length === 1
      ? 'Publishable key'
      : 'Any key'
    : types.includes('read_only_secret') && !auth.write
      ? 'Secret or read-only secret key'
      : 'Secret key';
  const scope = auth.scope === null ? '' : ` with \`${auth.scope}\``;
  const level = (auth.accessLevel ?? 1) > 1 ? `, access level ${auth.accessLevel}` : '';
  return `${who}${scope}${level}.`;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

/** What a handler gets besides the caller: the validated input of the request. */
export interface OperationInput<P extends TSchema, Q extends TSchema, B extends TSchema> {
  params: Static<P>;
  query: Static<Q>;
  body: Static<B>;
  request: FastifyRequest;
}

export interface Operation<
  P extends TSchema = TSchema,
  Q extends TSchema = TSchema,
  B extends TSchema = TSchema,
> {
  /** The dotted id: the v1 operationId, the log field and the metrics label (`tasks.update`). */
  id: string;
  method: Method;
  /** The path under each surface's prefix (`/tasks/:id`). */
  path: string;
  summary: string;
  description: string;
  params?: P;
  querystring?: Q;
  body?: B;
  /** The success answers (and any error a description adds); the conventions add the rest. */
  response: Record<number, TSchema>;
  /** The success status (default 200). */
  status?: number;
  /** Other route settings shared by every mount (`optionalBody`, `deprecated`). */
  config?: Omit<FastifyContextConfig, 'auth' | 'admin' | 'console' | 'credential' | 'public'>;
  mounts: readonly OperationMount[];
  /** One service call with the caller the mount's credential resolved to. */
  handle(caller: Caller, input: OperationInput<P, Q, B>): Promise<unknown>;
}

/**
 * Declares an operation: its handler's input is typed by its schemas here, and it is returned as a
 * plain `Operation` for `mountOperations` (the schemas validate the input before the handler runs).
 */
export function defineOperation<
  P extends TSchema = TObject<Record<string, never>>,
  Q extends TSchema = TObject<Record<string, never>>,
  B extends TSchema = TObject<Record<string, never>>,
>(operation: Operation<P, Q, B>): Operation {
  return operation as unknown as Operation;
}

const ORG_ID = Type.Object({ orgId: Type.String() }, { additionalProperties: false });

/** The admin mount's params: `orgId`, then the operation's own. */
function adminParams(params: TSchema | undefined): TSchema {
  const own = (params as TObject | undefined)?.properties ?? {};
  return Type.Object({ ...ORG_ID.properties, ...own }, { additionalProperties: false });
}

/** Registers every mount of each operation on `app` (a feature's routes plugin). */
export function mountOperations(app: FastifyInstance, operations: readonly Operation[]): void {
  for (const operation of operations) {
    for (const mount of operation.mounts) {
      const admin = mount.on === 'admin';
      const credential =
        mount.credential ?? (mount.on === 'admin' ? 'Admin bearer token.' : keySentence(mount.auth));
      app.route({
        method: operation.method,
        url: admin ? `/admin/v1/organizations/:orgId${operation.path}` : `/v1${operation.path}`,
        config: { ...operation.config, ...(admin ? { admin: true } : { auth: mount.auth }) },
        schema: {
          operationId: admin ? `admin.${operation.id}` : operation.id,
          summary: operation.summary,
          description: credential ? `${credential} ${operation.description}` : operation.description,
          tags: [...mount.tags],
          ...(admin || operation.params
            ? { params: admin ? adminParams(operation.params) : operation.params }
            : {}),
          ...(operation.querystring ? { querystring: operation.querystring } : {}),
          ...(operation.body ? { body: operation.body } : {}),
          response: operation.response,
        },
        handler: async (request, reply) => {
          const result = await operation.handle(callerOf(request), {
            params: request.params as never,
            query: request.query as never,
            body: request.body as never,
            request,
          });
          return reply.code(operation.status ?? 200).send(result);
        },
      });
    }
  }
}
