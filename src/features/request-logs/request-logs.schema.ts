import { Type, type Static } from '@fastify/type-provider-typebox';
import { DateOrDateTime } from '../../platform/http/dates.ts';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { DateTime, ref, StringEnum } from '../../platform/http/schemas.ts';

const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const RequestLogSchema = Type.Object(
  {
    id: Type.Integer({ description: 'The line (increasing with time, within a process)' }),
    at: DateTime({ description: 'When the request arrived' }),
    requestId: Type.String({
      description: 'The `X-Request-Id` the response carried',
      examples: ['req_0VhJ3kQ2Zt8mX1pR4sT6uW'],
    }),
    keyId: NullableString('The API key that called'),
    keyPrefix: NullableString('What listings show of the key (`sk_live_AbCd`)'),
    method: Type.String({ examples: ['POST'] }),
    path: Type.String({ description: 'The URL path, never the query string', examples: ['/v1/contacts'] }),
    operationId: NullableString('The route (`contacts.create`); null when none matched'),
    mcpTool: NullableString('The tool of an MCP `tools/call`'),
    status: Type.Integer({ minimum: 100, maximum: 599 }),
    errorCode: NullableString("The error envelope's `code` of a failure"),
    errorMessage: NullableString("The error envelope's `message`, emails and phone numbers masked"),
    latencyMs: Type.Integer({ minimum: 0, description: 'Time to answer, in milliseconds' }),
    ip: NullableString("The client's address (X-Forwarded-For with TRUST_PROXY)"),
    livemode: Type.Boolean({ description: "false for a line of the organization's test twin (a test key)" }),
  },
  { $id: 'RequestLog', additionalProperties: false },
);
export type RequestLog = Static<typeof RequestLogSchema>;

export const ListRequestLogsQuerySchema = Type.Object(
  {
    ...pageQuery(),
    status: Type.Optional(
      Type.String({
        pattern: '^([1-5]xx|[1-5][0-9]{2})$',
        description: 'A status class (`2xx`, `4xx`, `5xx`) or one status (`404`)',
        examples: ['4xx'],
      }),
    ),
    keyId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Lines of this API key' })),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        pattern: '^/',
        description: 'Paths starting with this (`/v1/contacts`)',
      }),
    ),
    requestId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'The line of this `X-Request-Id`' }),
    ),
    operationId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Lines of this route',
        examples: ['contacts.create'],
      }),
    ),
    since: Type.Optional(DateOrDateTime('Lines at or after this instant (a date means its start, UTC)')),
    until: Type.Optional(DateOrDateTime('Lines before this instant (a date means its start, UTC)')),
    mode: Type.Optional(
      StringEnum(['live', 'test'], {
        description: "Only the live organization's lines, or only its test twin's",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListRequestLogsQuery = Static<typeof ListRequestLogsQuerySchema>;

export const RequestLogListResponseSchema = ListOf(ref(RequestLogSchema));

export const requestLogsSchemas = [RequestLogSchema];
