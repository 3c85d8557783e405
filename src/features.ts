import { analyticsFeature } from './features/analytics/index.ts';
import { agentsFeature } from './features/agents/index.ts';
import { apiKeysFeature } from './features/api-keys/index.ts';
import { appointmentsFeature } from './features/appointments/index.ts';
import { bookingFeature } from './features/booking/index.ts';
import { calendarFeature } from './features/calendar/index.ts';
import { consentsFeature } from './features/consents/index.ts';
import { consoleFeature } from './features/console/index.ts';
import { contactsFeature } from './features/contacts/index.ts';
import { conversationsFeature } from './features/conversations/index.ts';
import { dealsFeature } from './features/deals/index.ts';
import { demoFeature } from './features/demo/index.ts';
import { emailFeature } from './features/email/index.ts';
import { eventLogFeature } from './features/event-log/index.ts';
import { eventsFeature } from './features/events/index.ts';
import { finderFeature } from './features/finder/index.ts';
import { leadsFeature } from './features/leads/index.ts';
import { meFeature } from './features/me/index.ts';
import { notesFeature } from './features/notes/index.ts';
import { oauthFeature } from './features/oauth/index.ts';
import { messagingHookFeature } from './features/messaging-hook/index.ts';
import { messagingSetupFeature } from './features/messaging-setup/index.ts';
import { opsFeature } from './features/ops/index.ts';
import { organizationsFeature } from './features/organizations/index.ts';
import { pipelinesFeature } from './features/pipelines/index.ts';
import { portalFeature } from './features/portal/index.ts';
import { privacyFeature } from './features/privacy/index.ts';
import { propertiesFeature } from './features/properties/index.ts';
import { propertyImportFeature } from './features/property-import/index.ts';
import { requestLogsFeature } from './features/request-logs/index.ts';
import { resoFeature } from './features/reso/index.ts';
import { feedsFeature } from './features/feeds/index.ts';
import { tasksFeature } from './features/tasks/index.ts';
import { timelineFeature } from './features/timeline/index.ts';
import { usageFeature } from './features/usage/index.ts';
import { webhooksFeature } from './features/webhooks/index.ts';
import type { FeatureManifest } from './platform/features/manifest.ts';

/**
 * Every feature of the service, one line each. The app (routes, schemas, credentials, metrics, tags),
 * the scopes, the event catalog (`installFeatures`), the MCP server (tools and summary counts), the
 * worker (jobs) and the start steps are folds over this list; a new feature is a new folder and one
 * line here (test/features.test.ts proves it with a feature of its own). The order is the order of the OpenAPI document's schemas and of MCP tools/list.
 */
export const FEATURES: readonly FeatureManifest[] = [
  opsFeature,
  meFeature,
  eventsFeature,
  eventLogFeature,
  organizationsFeature,
  apiKeysFeature,
  consoleFeature,
  requestLogsFeature,
  demoFeature,
  contactsFeature,
  notesFeature,
  consentsFeature,
  timelineFeature,
  privacyFeature,
  agentsFeature,
  propertiesFeature,
  propertyImportFeature,
  resoFeature,
  oauthFeature,
  feedsFeature,
  portalFeature,
  leadsFeature,
  calendarFeature,
  bookingFeature,
  finderFeature,
  analyticsFeature,
  tasksFeature,
  appointmentsFeature,
  pipelinesFeature,
  dealsFeature,
  usageFeature,
  webhooksFeature,
  conversationsFeature,
  messagingSetupFeature,
  messagingHookFeature,
  emailFeature,
];
