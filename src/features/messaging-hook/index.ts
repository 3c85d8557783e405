// The messaging platform's signed inbound hook: messages received and delivery receipts.
import { defineFeature } from '../../platform/features/manifest.ts';
import { messagingHookRoutes } from './messaging-hook.routes.ts';

/** The messaging-hook feature's manifest (src/features.ts lists it). */
export const messagingHookFeature = defineFeature({
  name: 'messaging-hook',
  tags: [
    {
      name: 'Hooks',
      description: 'Inbound calls from the messaging platform (signed by the platform, not by an API key)',
    },
  ],
  routes: [messagingHookRoutes],
});
