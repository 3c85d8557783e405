import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { ListOf } from '../../platform/http/pagination.ts';
import { TEMPLATE_CATEGORIES } from '../messaging-setup/index.ts';
import {
  DataOf,
  DateTime,
  ERROR_MESSAGES,
  NotBlank,
  ref,
  StringEnum,
  Nullable,
} from '../../platform/http/schemas.ts';
import { CONVERSATION_MODES, MESSAGE_DIRECTIONS, MESSAGE_STATUSES, MESSAGE_TYPES } from '../../db/schema.ts';

/** SPEC.md "Messaging modes": what the API may send to a contact right now. */
export const MESSAGING_MODES = ['FREE_FORM', 'TEMPLATE_ONLY', 'HUMAN_AGENT_ONLY', 'BLOCKED'] as const;
export type MessagingMode = (typeof MESSAGING_MODES)[number];

// The value sets of stored columns live beside their table, which is typed with them (decision 0248).
export {
  CONVERSATION_MODES,
  MESSAGE_DIRECTIONS,
  MESSAGE_STATUSES,
  MESSAGE_TYPES,
  type ConversationMode,
  type MessageDirection,
  type MessageStatus,
  type MessageType,
} from '../../db/schema.ts';
/** SPEC's message body limit. */
export const MAX_MESSAGE_LENGTH = 4096;

export const MessageAgentSchema = Type.Object(
  { id: Type.String(), firstName: Type.String(), lastName: Type.String() },
  { $id: 'MessageAgent', additionalProperties: false },
);

export const MessageUsageSchema = Type.Object(
  {
    category: StringEnum(TEMPLATE_CATEGORIES),
    billable: Type.Boolean({ description: 'Template messages are charged by the platform' }),
  },
  { $id: 'MessageUsage', additionalProperties: false },
);

export const MessageSchema = Type.Object(
  {
    id: Type.String({ description: 'msg_… identifier' }),
    chatMessageId: Nullable(
      Type.String({ description: 'Identifier on the messaging platform; null until sent' }),
    ),
    channel: Type.Literal('MESSAGING'),
    direction: StringEnum(MESSAGE_DIRECTIONS, { description: 'A sent message is OUTBOUND' }),
    type: StringEnum(MESSAGE_TYPES),
    body: Type.String({ description: 'Free text, or the template body with its {{variables}}' }),
    renderedBody: Nullable(Type.String({ description: 'A template with its variables filled in' })),
    status: StringEnum(MESSAGE_STATUSES),
    timestamp: DateTime(),
    contactId: Type.String(),
    agentId: Nullable(Type.String({ description: 'The agent who sent it (outbound only)' })),
    agent: Nullable(ref(MessageAgentSchema)),
    templateId: Nullable(Type.String()),
    usage: Nullable(ref(MessageUsageSchema)),
    failureReason: Nullable(Type.String({ description: 'Why the platform refused it (FAILED)' })),
  },
  { $id: 'Message', additionalProperties: false },
);
export type Message = Static<typeof MessageSchema>;

export const ConversationSchema = Type.Object(
  {
    id: Nullable(Type.String({ description: 'conv_… identifier; null before the first message' })),
    contactId: Type.String(),
    contact: Type.Object(
      {
        id: Type.String(),
        fullName: Type.String(),
        phone: Nullable(Type.String()),
        optedOut: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    mode: StringEnum(CONVERSATION_MODES, { description: 'HUMAN when a person has taken it over' }),
    blocked: Type.Boolean({ description: 'The agency blocked this number' }),
    messagingMode: StringEnum(MESSAGING_MODES, { description: 'What the API may send right now' }),
    canSendFreeForm: Type.Boolean(),
    lastInboundAt: Nullable(DateTime()),
    windowExpiresAt: Nullable(
      DateTime({ description: '24 h after the last inbound message; null if the contact never wrote' }),
    ),
    lastMessage: Nullable(ref(MessageSchema)),
    updatedAt: Nullable(DateTime()),
  },
  { $id: 'Conversation', additionalProperties: false },
);
export type Conversation = Static<typeof ConversationSchema>;

const MessageText = NotBlank({
  minLength: 1,
  maxLength: MAX_MESSAGE_LENGTH,
  description: 'Free text; only while the service window is open',
});
/** A property one shape of the body must not carry, with the message that says so. */
const Absent = (message: string) => Type.Never({ [ERROR_MESSAGES]: { not: message } });

/**
 * SPEC.md "POST /v1/conversations/{contactId}/messages": free text or a template, never both.
 * `variables` defaults to {} (SPEC), so an empty object goes with free text; values need a
 * template. `{}` fits the free-text shape: what may be sent then depends on the window, which the
 * service answers (409 with the mode, or 400 on `body.body`).
 */
export const SendMessageBodySchema = Type.Unsafe<
  | { body?: string; templateId?: never; variables?: Record<string, never> }
  | { templateId: string; body?: never; variables?: Record<string, string> }
>({
  $id: 'SendMessageBody',
  description: 'Free text (`body`) or an APPROVED template (`templateId` with its `variables`), not both',
  examples: [{ body: 'Hola Lucía, ¿le viene bien la visita del jueves a las 11:00?' }],
  oneOf: [
    Type.Object(
      {
        body: Type.Optional(MessageText),
        templateId: Type.Optional(Absent('cannot be sent with body: send free text or a template')),
        variables: Type.Optional(
          Type.Object(
            {},
            {
              maxProperties: 0,
              description: "SPEC's default {}; values only with a template",
              [ERROR_MESSAGES]: { maxProperties: 'are only for a template (templateId)' },
            },
          ),
        ),
      },
      { title: 'Free text', additionalProperties: false },
    ),
    Type.Object(
      {
        templateId: Type.String({ minLength: 1, maxLength: 64, description: 'An APPROVED template (tpl_…)' }),
        variables: Type.Optional(
          Type.Record(Type.String({ pattern: '^[A-Za-z0-9_]{1,64}$' }), Type.String({ maxLength: 1024 }), {
            description: "Values of the template's {{variables}}; default {}",
          }),
        ),
        body: Type.Optional(Absent('cannot be sent with templateId: send free text or a template')),
      },
      { title: 'Template', additionalProperties: false },
    ),
  ],
});
export type SendMessageBody = Static<typeof SendMessageBodySchema>;

export const ContactIdParamsSchema = Type.Object(
  { contactId: Type.String() },
  { additionalProperties: false },
);

export const UpdateConversationBodySchema = Type.Object(
  {
    mode: Type.Optional(
      StringEnum(CONVERSATION_MODES, {
        description: 'HUMAN: a person takes over (the API stops sending); AUTOMATED: hands it back',
      }),
    ),
    blocked: Type.Optional(Type.Boolean({ description: 'Block or unblock the number' })),
  },
  {
    $id: 'UpdateConversationBody',
    additionalProperties: false,
    minProperties: 1,
    // Taking over the conversation, not blocking the contact's number (what sampling would show).
    examples: [{ mode: 'HUMAN' }],
  },
);
export type UpdateConversationBody = Static<typeof UpdateConversationBodySchema>;

export const InboundMessageBodySchema = Type.Object(
  { body: NotBlank({ minLength: 1, maxLength: MAX_MESSAGE_LENGTH }) },
  { $id: 'InboundMessageBody', additionalProperties: false },
);
export type InboundMessageBody = Static<typeof InboundMessageBodySchema>;

export const MessageResponseSchema = DataOf(ref(MessageSchema));
export const MessageListResponseSchema = ListOf(ref(MessageSchema));
export const ConversationResponseSchema = DataOf(ref(ConversationSchema));
export const ConversationListResponseSchema = ListOf(ref(ConversationSchema));

export const conversationsSchemas: TSchema[] = [
  MessageAgentSchema,
  MessageUsageSchema,
  MessageSchema,
  ConversationSchema,
  SendMessageBodySchema,
  UpdateConversationBodySchema,
  InboundMessageBodySchema,
];
