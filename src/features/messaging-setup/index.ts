// The back office's messaging set-up: the messaging number and message templates.
import { messagingSetupPersonalData } from './messaging-setup.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { conversationsSetupRoutes } from './messaging-setup.routes.ts';
import { messagingSetupSchemas } from './messaging-setup.schema.ts';

export { TEMPLATE_CATEGORIES, TEMPLATE_STATUSES, type TemplateCategory } from './messaging-setup.schema.ts';
export {
  createMessageTemplate,
  createMessagingNumber,
  fillTemplate,
  findActiveMessagingNumber,
  findMessageTemplate,
  findMessagingNumberAnywhere,
  templateVariables,
} from './messaging-setup.service.ts';

/** The messaging-setup feature's manifest (src/features.ts lists it). */
export const messagingSetupFeature = defineFeature({
  name: 'messaging-setup',
  personalData: messagingSetupPersonalData,
  tags: [
    {
      name: 'Admin: messaging',
      description: 'Messaging numbers and message templates of the organization (admin)',
    },
  ],
  examples: {
    fields: {
      'MessageTemplate.name': 'visit_followup',
      'CreateMessageTemplateBody.name': 'visit_followup',
      'UpdateMessageTemplateBody.name': 'visit_followup',
      providerNumberId: '106540352242922',
    },
  },
  schemas: messagingSetupSchemas,
  routes: [conversationsSetupRoutes],
});
