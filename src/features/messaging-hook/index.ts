// The messaging platform's signed inbound hook: messages received and delivery receipts.
import { defineFeature } from '../../platform/features/manifest.ts';
import { messagingHookRoutes } from './messaging-hook.routes.ts';

/** The messaging-hook feature's manifest (src/features.ts lists it). */
export const messagingHookFeature = defineFeature({ name: 'messaging-hook', routes: [messagingHookRoutes] });
