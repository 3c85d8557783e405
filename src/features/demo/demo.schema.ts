import { Type, type Static } from '@fastify/type-provider-typebox';
import { DataOf, ref } from '../../platform/http/schemas.ts';
import { AdminOrganizationSchema } from '../organizations/index.ts';

export const DemoSeedSchema = Type.Object(
  {
    organization: ref(AdminOrganizationSchema),
    publishableKey: Type.String(),
    secretKey: Type.String({ description: 'Secret key with every scope and access level 3' }),
  },
  { $id: 'DemoSeed', additionalProperties: false },
);
export type DemoSeed = Static<typeof DemoSeedSchema>;

export const DemoSeedResponseSchema = DataOf(ref(DemoSeedSchema));

export const demoSchemas = [DemoSeedSchema];
