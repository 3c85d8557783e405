import { Type, type Static } from '@fastify/type-provider-typebox';
import { DataOf, Nullable, StringEnum } from '../../platform/http/schemas.ts';

/** One bounce, as the mail system (or a small relay in front of it) reports it (docs/email-bounces.md). */
export const BounceBodySchema = Type.Object(
  {
    messageId: Type.String({
      minLength: 1,
      maxLength: 998,
      description:
        'The Message-ID of the email that bounced, as sent (`<eml_…@domain>`; the angle brackets may be left out)',
    }),
    recipient: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 320,
        pattern: '^[^\\s@]+@[^\\s@]+$',
        description: 'The address that bounced; when given it must be the one the email went to',
      }),
    ),
    permanent: Type.Boolean({
      description:
        'true for a hard bounce (5xx: no such mailbox, domain): the address gets nothing more; false for a soft one',
    }),
    reason: Type.Optional(
      Nullable(Type.String({ maxLength: 1000, description: 'The mail server’s words (an SMTP reply)' })),
    ),
  },
  {
    $id: 'EmailBounce',
    additionalProperties: false,
    examples: [
      {
        messageId: '<eml_0VhJ3kQ2Zt8mX1pR4sT6uE@costa-homes.example>',
        recipient: 'marta@example.com',
        permanent: true,
        reason: '550 5.1.1 The email account that you tried to reach does not exist',
      },
    ],
  },
);
export type BounceBody = Static<typeof BounceBodySchema>;

export const BOUNCE_OUTCOMES = ['BOUNCED', 'REPEATED', 'NOT_SENT', 'UNKNOWN'] as const;
export type BounceOutcome = (typeof BOUNCE_OUTCOMES)[number];

export const BounceResultSchema = DataOf(
  Type.Object(
    {
      outcome: StringEnum(BOUNCE_OUTCOMES, {
        description:
          'BOUNCED: the email is BOUNCED now (`email.bounced` recorded); REPEATED: it already was, nothing new; ' +
          'NOT_SENT: the email was never sent (nothing changed); UNKNOWN: no email of ours has this Message-ID ' +
          '(and recipient). Always 200, so the mail system does not retry',
      }),
      emailId: Nullable(Type.String({ description: 'The email (eml_…), when found' })),
      suppressed: Type.Boolean({ description: 'The address gets nothing more (a permanent bounce)' }),
    },
    { additionalProperties: false },
  ),
);
export type BounceResult = Static<typeof BounceResultSchema>['data'];

export const emailBounceSchemas = [BounceBodySchema];
