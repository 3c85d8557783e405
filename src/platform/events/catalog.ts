import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { Value } from 'typebox/value';

/**
 * Who caused an event (SPEC.md "Event delivery envelope"). CONSOLE: a person in the agency's
 * developer console; `userId` is the console session id (issue 22).
 */
export const ACTOR_KINDS = ['USER', 'NOA', 'SYSTEM', 'API', 'AUTOMATION', 'INTEGRATION', 'CONSOLE'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];
export interface Actor {
  kind: ActorKind;
  userId: string | null;
}

export interface EventDefinition<T extends TSchema = TSchema> {
  /** `object.action`, e.g. `contact.created`; the object part is what `contact.*` subscribes to. */
  type: string;
  description: string;
  /** Schema of the envelope's `data`. */
  schema: T;
  /** A realistic payload, shown in the catalog and checked against `schema` by the tests. */
  example: Static<T>;
}

const TYPE_PATTERN = /^[a-z][a-z_]*\.[a-z][a-z_]*$/;

/**
 * The catalog: every event type the service emits. `installFeatures` (platform/features/manifest.ts)
 * registers the types the feature manifests declare, when the app, the worker's jobs or the start
 * steps are built; importing a feature registers nothing.
 */
class EventCatalog {
  private readonly definitions = new Map<string, EventDefinition>();

  register(definitions: readonly EventDefinition[]): void {
    for (const definition of definitions) this.add(definition);
  }

  private add(definition: EventDefinition): void {
    if (!TYPE_PATTERN.test(definition.type)) throw new Error(`bad event type ${definition.type}`);
    const existing = this.definitions.get(definition.type);
    if (existing && existing !== definition) throw new Error(`event type ${definition.type} defined twice`);
    this.definitions.set(definition.type, definition);
  }

  get(type: string): EventDefinition | undefined {
    return this.definitions.get(type);
  }

  /** Every definition, sorted by type. */
  list(): EventDefinition[] {
    return [...this.definitions.values()].sort((a, b) => a.type.localeCompare(b.type));
  }

  /** Throws when `data` does not match the published schema of `type` (a programming error). */
  check(type: string, data: unknown): void {
    const definition = this.definitions.get(type);
    if (!definition) throw new Error(`event type ${type} is not in the catalog`);
    if (!Value.Check(definition.schema, data)) {
      const first = [...Value.Errors(definition.schema, data)][0];
      throw new Error(`event ${type} payload does not match its schema: ${JSON.stringify(first)}`);
    }
  }
}

export const eventCatalog = new EventCatalog();

/** Declares an event type (in a feature's `*.events.ts`); its manifest's `events` lists it for the catalog. */
export function defineEvent<T extends TSchema>(definition: EventDefinition<T>): EventDefinition<T> {
  return definition;
}

/**
 * The payload's field tree with null leaves (`[]` for arrays): the synthetic sample of a type that
 * has not happened yet (DESIGN.md).
 */
export function fieldTree(schema: TSchema): unknown {
  const s = schema as Record<string, unknown>;
  if (s.type === 'object' && s.properties && typeof s.properties === 'object') {
    const tree: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(s.properties as Record<string, TSchema>))
      tree[name] = fieldTree(child);
    return tree;
  }
  if (s.type === 'array') return [];
  const members = (s.anyOf ?? s.oneOf) as TSchema[] | undefined;
  const objectMember = members?.find((m) => (m as Record<string, unknown>).type === 'object');
  if (objectMember) return fieldTree(objectMember);
  return null;
}

/**
 * The payload of an `object.deleted` (or `property.removed`) event: a tombstone, `{<object>: {id,
 * deletedAt, ...extra}}`, never the deleted data (decision 0187): a mirror needs only the id, and a
 * deleted person's details must not live on in the event log and in receivers' queues.
 */
export function tombstoneSchema<
  const K extends string,
  E extends Record<string, TSchema> = Record<never, TSchema>,
>(object: K, extra?: E) {
  const item = Type.Object(
    {
      id: Type.String({ description: `The ${object}'s id` }),
      deletedAt: Type.String({
        format: 'date-time',
        description: 'When it was deleted (or left the portal)',
      }),
      ...(extra ?? ({} as E)),
    },
    { additionalProperties: false },
  );
  return Type.Object({ [object]: item } as { [P in K]: typeof item }, { additionalProperties: false });
}

/** `{id, deletedAt: now}`: the tombstone of one deleted row. */
export function tombstoneOf(id: string, deletedAt = new Date()): { id: string; deletedAt: string } {
  return { id, deletedAt: deletedAt.toISOString() };
}
