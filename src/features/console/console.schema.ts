import { Type, type Static } from '@fastify/type-provider-typebox';
import { pageQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, ref, StringEnum } from '../../platform/http/schemas.ts';

export const ConsoleLinkSchema = Type.Object(
  {
    url: Type.String({ description: 'Open it in a browser within 15 minutes; it works once' }),
    expiresAt: DateTime(),
  },
  { $id: 'ConsoleLink', additionalProperties: false },
);
export type ConsoleLink = Static<typeof ConsoleLinkSchema>;
export const ConsoleLinkResponseSchema = DataOf(ref(ConsoleLinkSchema));

export const RevokedSessionsResponseSchema = DataOf(
  Type.Object(
    { revoked: Type.Integer({ description: 'Live sessions ended' }) },
    { additionalProperties: false },
  ),
);

/** What the console page learns about its session (internal API, not in the public document). */
export const ConsoleSessionInfoSchema = Type.Object(
  {
    organization: Type.Object(
      {
        id: Type.String(),
        name: Type.String(),
        testOrganizationId: Type.Union([Type.String(), Type.Null()]),
      },
      { additionalProperties: false },
    ),
    expiresAt: DateTime(),
    csrfToken: Type.String({ description: 'Send it back as X-CSRF-Token on every change' }),
  },
  { additionalProperties: false },
);
export type ConsoleSessionInfo = Static<typeof ConsoleSessionInfoSchema>;

export const StartQuerySchema = Type.Object(
  { token: Type.Optional(Type.String({ maxLength: 100 })) },
  { additionalProperties: false },
);

export const consoleSchemas = [ConsoleLinkSchema];

// The console API's shared route parts (console.api.routes.ts, console.webhooks.routes.ts).
/** Route config of every console API route: the session cookie, Origin and X-CSRF-Token on changes. */
/** A console read (a read-only organization may still look). */
export const CONSOLE = { console: { write: false } } as const;
/** A console change: refused with 402 while the organization is read-only. */
export const CONSOLE_WRITE = { console: { write: true } } as const;
const Mode = Type.Optional(StringEnum(['live', 'test'] as const));
export const ModeQuery = Type.Object({ mode: Mode }, { additionalProperties: false });
export const ModePageQuery = Type.Object({ mode: Mode, ...pageQuery() }, { additionalProperties: false });
export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
