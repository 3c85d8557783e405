import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { ListOf } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, PhoneText, StringEnum, ref } from '../../platform/http/schemas.ts';
import { TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from '../../db/schema.ts';

// The value sets of stored columns live beside their table, which is typed with them (decision 0248).
export {
  TEMPLATE_CATEGORIES,
  TEMPLATE_STATUSES,
  type TemplateCategory,
  type TemplateStatus,
} from '../../db/schema.ts';

/** The messaging platform's limit on a template body. */
export const MAX_TEMPLATE_LENGTH = 1024;

export const MessagingNumberSchema = Type.Object(
  {
    id: Type.String({ description: 'mnum_… identifier; the inbound hook is /hooks/messaging/{id}' }),
    phone: Type.String({ description: 'E.164' }),
    providerNumberId: Type.String({ description: "The platform's id of the number" }),
    active: Type.Boolean(),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'MessagingNumber', additionalProperties: false },
);
export type MessagingNumber = Static<typeof MessagingNumberSchema>;

const numberFields = {
  phone: PhoneText({ minLength: 5, maxLength: 32 }),
  providerNumberId: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9_-]+$',
    description: "The platform's id of the number; default the phone's digits",
  }),
  active: Type.Boolean({ description: 'At most one active number per organization' }),
};
export const CreateMessagingNumberBodySchema = Type.Object(
  {
    phone: numberFields.phone,
    providerNumberId: Type.Optional(numberFields.providerNumberId),
    active: Type.Optional(numberFields.active),
  },
  { $id: 'CreateMessagingNumberBody', additionalProperties: false },
);
export type CreateMessagingNumberBody = Static<typeof CreateMessagingNumberBodySchema>;
export const UpdateMessagingNumberBodySchema = Type.Object(
  Type.Partial(Type.Object(numberFields)).properties,
  {
    $id: 'UpdateMessagingNumberBody',
    additionalProperties: false,
    minProperties: 1,
    examples: [{ active: true }],
  },
);
export type UpdateMessagingNumberBody = Static<typeof UpdateMessagingNumberBodySchema>;

export const MessageTemplateSchema = Type.Object(
  {
    id: Type.String({ description: 'tpl_… identifier' }),
    name: Type.String(),
    language: Type.String(),
    category: StringEnum(TEMPLATE_CATEGORIES),
    body: Type.String(),
    variables: Type.Array(Type.String(), { description: 'The {{variables}} of the body, in order' }),
    status: StringEnum(TEMPLATE_STATUSES),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'MessageTemplate', additionalProperties: false },
);
export type MessageTemplate = Static<typeof MessageTemplateSchema>;

const templateFields = {
  name: Type.String({ minLength: 1, maxLength: 512, pattern: '^[a-z0-9_]+$' }),
  language: Type.String({ pattern: '^[a-z]{2,3}(_[A-Z]{2})?$', description: 'e.g. es or en_US; default en' }),
  category: StringEnum(TEMPLATE_CATEGORIES),
  body: Type.String({
    minLength: 1,
    maxLength: MAX_TEMPLATE_LENGTH,
    description: 'Text with {{name}} variables (letters, digits, _)',
  }),
  status: StringEnum(TEMPLATE_STATUSES, { description: 'Default PENDING (the platform reviews it)' }),
};
export const CreateMessageTemplateBodySchema = Type.Object(
  {
    name: templateFields.name,
    language: Type.Optional(templateFields.language),
    category: templateFields.category,
    body: templateFields.body,
    status: Type.Optional(templateFields.status),
  },
  { $id: 'CreateMessageTemplateBody', additionalProperties: false },
);
export type CreateMessageTemplateBody = Static<typeof CreateMessageTemplateBodySchema>;
export const UpdateMessageTemplateBodySchema = Type.Object(
  Type.Partial(Type.Object(templateFields)).properties,
  {
    $id: 'UpdateMessageTemplateBody',
    additionalProperties: false,
    minProperties: 1,
    // What the operator changes once the platform has approved a template (sampled, every field would be rewritten).
    examples: [{ status: 'APPROVED' }],
  },
);
export type UpdateMessageTemplateBody = Static<typeof UpdateMessageTemplateBodySchema>;

export const OrgNumberParamsSchema = Type.Object(
  { orgId: Type.String(), numberId: Type.String() },
  { additionalProperties: false },
);
export const OrgTemplateParamsSchema = Type.Object(
  { orgId: Type.String(), templateId: Type.String() },
  { additionalProperties: false },
);
export const MessagingNumberResponseSchema = DataOf(ref(MessagingNumberSchema));
export const MessagingNumberListResponseSchema = ListOf(ref(MessagingNumberSchema));
export const MessageTemplateResponseSchema = DataOf(ref(MessageTemplateSchema));
export const MessageTemplateListResponseSchema = ListOf(ref(MessageTemplateSchema));

export const messagingSetupSchemas: TSchema[] = [
  MessagingNumberSchema,
  CreateMessagingNumberBodySchema,
  UpdateMessagingNumberBodySchema,
  MessageTemplateSchema,
  CreateMessageTemplateBodySchema,
  UpdateMessageTemplateBodySchema,
];
