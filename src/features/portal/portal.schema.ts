import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { DataOf, DateTime, Nullable, PhoneText, ref } from '../../platform/http/schemas.ts';

const Url = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });
const Color = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: '#RRGGBB' });

const ColorsSchema = Type.Object(
  {
    primary: Type.Optional(Color),
    secondary: Type.Optional(Color),
    accent: Type.Optional(Color),
    background: Type.Optional(Color),
    text: Type.Optional(Color),
  },
  { $id: 'PortalColors', additionalProperties: false },
);

const ContactSchema = Type.Object(
  {
    email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
    phone: Type.Optional(Nullable(PhoneText({ maxLength: 30 }))),
    messagingPhone: Type.Optional(Nullable(PhoneText({ maxLength: 30 }))),
    address: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
    openingHours: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
  },
  { $id: 'PortalContact', additionalProperties: false },
);

export const SOCIAL_NETWORKS = [
  'facebook',
  'instagram',
  'linkedin',
  'x',
  'youtube',
  'tiktok',
  'website',
] as const;
const SocialLinksSchema = Type.Object(
  Object.fromEntries(SOCIAL_NETWORKS.map((name) => [name, Type.Optional(Url)])) as Record<
    (typeof SOCIAL_NETWORKS)[number],
    ReturnType<typeof Type.Optional<typeof Url>>
  >,
  { $id: 'PortalSocialLinks', additionalProperties: false },
);

/** What `GET /v1/portal` answers: everything a website needs to brand itself. */
export const PortalSchema = Type.Object(
  {
    organizationId: Type.String(),
    agencyName: Type.String(),
    logoUrl: Nullable(Type.String()),
    colors: ref(ColorsSchema),
    contact: ref(ContactSchema),
    socialLinks: ref(SocialLinksSchema),
    defaultCurrency: Type.String({ description: 'ISO 4217' }),
    defaultCountry: Type.String({ description: 'ISO 3166 alpha-2: phone numbers without + are read in it' }),
    defaultLanguage: Type.String({
      description: 'ISO 639-1: listings are served in it unless `lang` or Accept-Language asks for another',
    }),
    languages: Type.Array(Type.String(), {
      description: 'The languages listings can be asked in (`lang=`), the default first',
    }),
    livemode: Type.Boolean(),
    updatedAt: Nullable(DateTime()),
  },
  { $id: 'Portal', additionalProperties: false },
);
export type Portal = Static<typeof PortalSchema>;

export const UpdatePortalSettingsBodySchema = Type.Object(
  {
    agencyName: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    logoUrl: Type.Optional(Nullable(Url)),
    colors: Type.Optional(ref(ColorsSchema)),
    contact: Type.Optional(ref(ContactSchema)),
    socialLinks: Type.Optional(ref(SocialLinksSchema)),
    defaultCurrency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
    defaultCountry: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  },
  { $id: 'UpdatePortalSettingsBody', additionalProperties: false, minProperties: 1 },
);
export type UpdatePortalSettingsBody = Static<typeof UpdatePortalSettingsBodySchema>;

export const PortalResponseSchema = DataOf(ref(PortalSchema));

export const portalSchemas: TSchema[] = [
  ColorsSchema,
  ContactSchema,
  SocialLinksSchema,
  PortalSchema,
  UpdatePortalSettingsBodySchema,
];
