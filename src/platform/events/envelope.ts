import { Type, type TSchema } from '@fastify/type-provider-typebox';
import { DateTime, ERROR_MESSAGES, Nullable, StringEnum } from '../http/schemas.ts';
import { ACTOR_KINDS, eventCatalog, type Actor } from './catalog.ts';

/** An event as the events table holds it, once its transaction committed (so with its `sequence`). */
export interface StoredEvent {
  id: string;
  type: string;
  createdAt: Date;
  organizationId: string;
  livemode: boolean;
  actor: Actor | { kind: string | null; userId: string | null };
  data: Record<string, unknown>;
  sequence: number;
}

/**
 * SPEC.md "Event delivery envelope", `event` first, plus `sequence`: what a webhook delivery POSTs,
 * what the event log lists and what a sample shows. One builder, so the three cannot drift.
 */
export function envelopeOf(event: StoredEvent) {
  return {
    event: event.type,
    id: event.id,
    type: event.type,
    timestamp: event.createdAt.toISOString(),
    organizationId: event.organizationId,
    livemode: event.livemode,
    actor: { kind: event.actor.kind as Actor['kind'] | null, userId: event.actor.userId },
    data: event.data,
    sequence: event.sequence,
  };
}

export const EventEnvelopeSchema = Type.Object(
  {
    event: Type.String({ description: 'The event type (SPEC.md keeps this name beside `type`)' }),
    id: Type.String({ description: 'evt_… identifier: the same on every delivery attempt; dedupe on it' }),
    type: Type.String({ description: 'Event type of the catalog (GET /v1/events)' }),
    timestamp: DateTime({ description: 'When the event was recorded' }),
    organizationId: Type.String(),
    livemode: Type.Boolean({ description: 'false for events of the test organization' }),
    actor: Type.Object(
      { kind: Nullable(StringEnum(ACTOR_KINDS)), userId: Nullable(Type.String()) },
      { additionalProperties: false },
    ),
    data: Type.Object(
      {},
      { additionalProperties: true, description: 'The payload: its schema is in the catalog' },
    ),
    sequence: Type.Integer({
      minimum: 0,
      description:
        "The event's place in its organization's event log: 1, 2, 3… in commit order, without gaps " +
        '(GET /v1/event-log?after=). 0 only on a synthetic sample.',
    }),
  },
  { $id: 'EventEnvelope', additionalProperties: false },
);

// Its first users were webhook subscriptions: the component keeps that name for generated clients.
const EVENT_TYPE_PATTERN_ID = 'WebhookEventTypePattern';
let eventTypePattern: { types: string; schema: TSchema } | undefined;

/**
 * What a webhook subscription or an event-log filter may name (decision 0097): a type of the event
 * catalog, `object.*` of an object in it, or `*`. Built from the catalog when an app is built
 * (`src/features.ts` fills the catalog after the manifests load), and kept while the catalog stays
 * the same, so validators are not compiled again for each app.
 */
export function eventTypePatternSchema(): TSchema {
  const types = eventCatalog.list().map((definition) => definition.type);
  if (eventTypePattern?.types !== types.join()) {
    const objects = [...new Set(types.map((type) => type.slice(0, type.indexOf('.'))))];
    const schema = Type.Union(
      [
        StringEnum(types, { description: 'An event type of the catalog (GET /v1/events)' }),
        StringEnum(['*', ...objects.map((object) => `${object}.*`)], {
          description: 'Every type (`*`), or every type of one object (`contact.*`)',
        }),
      ],
      {
        $id: EVENT_TYPE_PATTERN_ID,
        description: 'An exact event type (`deal.won`), an object wildcard (`contact.*`) or `*`',
        [ERROR_MESSAGES]: {
          anyOf:
            'is not an event type of the catalog (GET /v1/events), an object wildcard such as contact.* or *',
        },
      },
    );
    eventTypePattern = { types: types.join(), schema };
  }
  return eventTypePattern.schema;
}

/** A reference to the pattern schema, for a property or an array item. */
export const EventTypePatternRef = () => Type.Unsafe<string>({ $ref: `${EVENT_TYPE_PATTERN_ID}#` });
