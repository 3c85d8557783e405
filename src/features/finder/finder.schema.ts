import type { TSchema } from '@fastify/type-provider-typebox';

export const finderSchemas: TSchema[] = [];
