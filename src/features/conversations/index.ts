// Conversations over the messaging channel: modes, the 24-hour window, sends and the inbox.
import { conversationsPersonalData } from './conversations.personal-data.ts';
import { defineFeature, type JobContext } from '../../platform/features/manifest.ts';
import { MessageReceived, MessageSent, MessageStatusChanged } from './conversations.events.ts';
import { conversationsMcpTools } from './conversations.mcp.ts';
import { conversationsRoutes } from './conversations.routes.ts';
import { conversationsSchemas } from './conversations.schema.ts';
import { failInterruptedSends } from './conversations.send.ts';

export { sandboxProvider, type MessagingProvider } from './conversations.provider.ts';
export type { MessageStatus, MessageType } from './conversations.schema.ts';
export { applyStatus, receiveMessage, recordInbound } from './conversations.inbound.ts';
export { sendAsOrganization, sendMessage } from './conversations.send.ts';
export {
  messagingContext,
  PLATFORM,
  updateConversation,
  type MessagingContext,
} from './conversations.service.ts';

/** The conversations feature's manifest (src/features.ts lists it). */
export const conversationsFeature = defineFeature({
  name: 'conversations',
  personalData: conversationsPersonalData,
  scopes: [
    { name: 'messages:write', description: 'sends messages over the messaging channel' },
    { name: 'conversations:read', description: 'reads conversations and messages' },
  ],
  tags: [
    {
      name: 'Conversations',
      description: 'Messages over the messaging channel: the 24-hour window, templates, sending',
    },
    {
      name: 'Admin: conversations',
      description: 'Conversations, human takeover and simulated inbound messages (admin)',
    },
  ],
  examples: {
    ids: {
      templateId: 'tpl',
      conversationId: 'conv',
      messageId: 'msg',
    },
    schemaIds: {
      MessageAgent: 'agt',
    },
    fields: {
      renderedBody: 'Hola Lucía, ¿le viene bien la visita del jueves a las 11:00?',
      chatMessageId: 'wamid.HBgLMzQ2MDAxMTEyMjIVAgARGBI',
      failureReason: 'The recipient is not on the messaging platform',
      variables: 'Lucía',
    },
  },
  schemas: conversationsSchemas,
  routes: [conversationsRoutes],
  mcpTools: conversationsMcpTools,
  events: [MessageSent, MessageReceived, MessageStatusChanged],
  jobs: ({ db }: JobContext) => [
    {
      // Sends a crash interrupted between their two transactions: FAILED, never QUEUED for ever.
      name: 'messages.fail_interrupted',
      intervalMs: 60_000,
      async run() {
        await failInterruptedSends(db);
      },
    },
  ],
});
