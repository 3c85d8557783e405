import { Type, type Static } from '@fastify/type-provider-typebox';
import { ref } from '../../platform/http/schemas.ts';
import { defineTool } from '../../platform/mcp/mcp-tool.ts';
import { ContactSchema, getContact } from '../contacts/index.ts';
import { MessageSchema } from './conversations.schema.ts';
import { listRecentMessages } from './conversations.service.ts';

// get_contact lives here, not in contacts: it adds the contact's latest messages, and contacts sits
// below conversations (conversations read contacts, never the other way round).

/** How many of the contact's latest messages get_contact adds for a key with conversations:read. */
const RECENT_MESSAGES = 10;

const GetContactInputSchema = Type.Object(
  { contactId: Type.String({ minLength: 1, maxLength: 64, description: 'ct_… identifier' }) },
  { additionalProperties: false },
);

/**
 * `recentMessages` (newest first) only for keys holding `conversations:read` (SPEC.md "MCP endpoint");
 * left out otherwise, so a key without that scope cannot tell whether messages exist.
 */
const GetContactOutputSchema = Type.Object(
  {
    data: ref(ContactSchema),
    recentMessages: Type.Optional(
      Type.Array(ref(MessageSchema), { description: `The latest ${RECENT_MESSAGES} messages, newest first` }),
    ),
  },
  { additionalProperties: false, description: 'The contact, as GET /v1/contacts/{id} answers it' },
);

export const getContactTool = defineTool({
  name: 'get_contact',
  title: 'Get one contact',
  description:
    'One contact by id (ct_…, as search_contacts returns it): name, phone, email, status, type, source, score ' +
    '(0-100, recent activity weighs more), owner agent, preferences (preferredCity, preferredType, budget), tags, ' +
    'and whether they opted out of messages. With the conversations:read scope, `recentMessages` adds the ' +
    `latest ${RECENT_MESSAGES} messages exchanged with them (newest first). ` +
    'Use match_properties_for_contact to suggest listings for them.',
  scopes: ['contacts:read'],
  input: GetContactInputSchema,
  output: GetContactOutputSchema,
  run: async ({ db, caller }, args: Static<typeof GetContactInputSchema>) => {
    const data = await getContact(db, caller, args.contactId);
    if (!caller.scopes.includes('conversations:read')) return { data };
    const recentMessages = await listRecentMessages(db, caller, data.id, RECENT_MESSAGES);
    return { data, recentMessages };
  },
  summarize: ({ data }) =>
    `${data.fullName} (${data.code}): ${data.status} ${data.type}, score ${data.score}` +
    `${data.optedOut ? ', opted out of messages' : ''}.`,
});

export const conversationsMcpTools = [getContactTool];
