/**
 * @agency-crm/client: a typed client of the agency-crm API and a webhook verifier.
 *
 * ```ts
 * const client = createClient({ apiKey: process.env.AGENCY_CRM_KEY!, baseUrl: 'https://api.example.com' });
 * for await (const property of client.properties.list({ city: 'Málaga', pageSize: 48 })) console.log(property.title);
 * ```
 */
export { createClient, type Client, type ClientOptions } from './client.ts';
export {
  ApiConnectionError,
  ApiError,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './errors.ts';
export { verifyWebhook, type VerifyWebhookOptions } from './webhooks.ts';
export { OPERATIONS, type Api, type ClientOperationId } from './generated/operations.ts';
export type { components, operations, paths, webhooks } from './generated/openapi.ts';
export type {
  ApiResult,
  Body,
  ErrorBody,
  ErrorCode,
  ErrorDetail,
  Item,
  OperationSpec,
  PagePromise,
  Query,
  RateLimit,
  RequestOptions,
  ResponseInfo,
  Result,
  Schemas,
  WebhookEvent,
  WebhookEventType,
} from './types.ts';
