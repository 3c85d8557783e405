import { Type, type Static } from '@fastify/type-provider-typebox';
import { DataOf } from '../../platform/http/schemas.ts';

/** Rows per request: keeps one batch's transaction short and its body under the 1 MiB limit. */
export const IMPORT_MAX_ROWS = 1000;

export const ImportPropertiesBodySchema = Type.Object(
  {
    // Rows are checked one by one in the service, so one bad row fails alone instead of the batch.
    rows: Type.Array(Type.Unknown(), {
      minItems: 1,
      maxItems: IMPORT_MAX_ROWS,
      description:
        'Properties as `POST .../properties` takes them (CreatePropertyBody), upserted by `code`: a new code ' +
        'creates, a known one is replaced by the row (absent fields take their defaults), an identical one is unchanged',
    }),
    dryRun: Type.Optional(
      Type.Boolean({ description: 'Check every row and count what would change, writing nothing' }),
    ),
  },
  { additionalProperties: false },
);
export type ImportPropertiesBody = Static<typeof ImportPropertiesBodySchema>;

export const ImportRowErrorSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: 'Position of the row in `rows`, from 0' }),
    code: Type.Union([Type.String(), Type.Null()], {
      description: "The row's property code when it has one, to find it in the source",
    }),
    field: Type.String({
      description:
        'The failing field inside the row (`price`, `coordinates.latitude`, `photos[1].url`); empty when the row itself is not an object',
    }),
    message: Type.String(),
  },
  { additionalProperties: false },
);
export type ImportRowError = Static<typeof ImportRowErrorSchema>;

export const ImportResultSchema = Type.Object(
  {
    received: Type.Integer({ description: 'Rows in the request' }),
    created: Type.Integer(),
    updated: Type.Integer(),
    unchanged: Type.Integer({ description: 'Rows identical to the stored property: nothing written' }),
    failed: Type.Integer({ description: 'Rows refused; each has at least one entry in `errors`' }),
    dryRun: Type.Boolean(),
    errors: Type.Array(ImportRowErrorSchema),
  },
  { additionalProperties: false },
);
export type ImportResult = Static<typeof ImportResultSchema>;

export const ImportResultResponseSchema = DataOf(ImportResultSchema);
