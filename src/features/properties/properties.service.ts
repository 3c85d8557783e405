import type { Tx } from '../../db/database.ts';
import type { PropertyRow, PropertyTranslations } from '../../db/schema.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { isId } from '../../platform/ids/ids.ts';
import { fold } from '../../platform/text/fold.ts';
import {
  AMENITIES,
  type AdminProperty,
  type Amenity,
  type CreatePropertyBody,
  type PortalProperty,
} from './properties.schema.ts';
import { locationOf, shownAddress } from './properties.location.ts';
import { photoViews, storedPhoto } from './properties.photos.rules.ts';
import * as store from './properties.store.ts';

export type { PropertyRef } from './properties.store.ts';

/**
 * The published property a portal form refers to, inside the caller's transaction; a 400 naming
 * `field` when the id is malformed, unknown, of another agency or not published (forms refer to
 * what the portal shows, so an unpublished id is as wrong as a made-up one).
 */
export async function requirePortalProperty(
  tx: Tx,
  organizationId: string,
  id: string,
  field = 'body.propertyId',
): Promise<store.PropertyRef> {
  const found = isId(id, 'prop') ? await store.findPortalPropertyRef(tx, organizationId, id) : null;
  if (!found) throw Errors.invalidField(field, `does not name a property published on this agency's portal`);
  return found;
}

function coordinates(latitude: number | null, longitude: number | null) {
  return latitude === null || longitude === null ? null : { latitude, longitude };
}

/**
 * Title and description in the served language where the listing has it, else its own, in the
 * organization's default language (read with the row).
 */
function textIn(p: store.PortalPropertyRow, served: string | undefined) {
  const own = p.defaultLanguage ?? 'en';
  const translated = served === undefined || served === own ? undefined : p.translations[served];
  return translated
    ? { title: translated.title, description: translated.description, language: served as string }
    : { title: p.title, description: p.description, language: own };
}

/**
 * The portal view, in the served language (servedLanguage(); the organization's default when not
 * given): the address as its visibility allows (properties.location.ts), coordinates as rounded when
 * written; never internal notes or custom fields.
 */
export function toPortalProperty(record: store.PortalPropertyWithAgent, served?: string): PortalProperty {
  const p = record.property;
  // Added to the common view's object, not spread into a new one: V8 copied `{...a, ...b, ...c}` of this
  // many fields through a path whose objects left the young generation, ~60 KB per listing of 12
  // (bench/README.md, "Scenario `memory`"; decision 0251).
  return Object.assign(commonView(record), textIn(p, served), shownAddress(p), {
    coordinates: coordinates(p.portalLatitude, p.portalLongitude),
  });
}

/** The fields both views show alike. */
function commonView({ property: p, agent }: store.PortalPropertyWithAgent) {
  return {
    id: p.id,
    code: p.code,
    transactionType: p.transactionType,
    type: p.type,
    status: p.status,
    featured: p.featured,
    price: p.price,
    previousPrice: p.previousPrice ?? null,
    currency: p.currency,
    city: p.city,
    neighborhood: p.neighborhood,
    addressVisibility: p.addressVisibility,
    approximateLocation: p.addressVisibility === 'HIDDEN',
    bedrooms: p.bedrooms,
    bathrooms: p.bathrooms,
    area: p.area,
    amenities: p.amenities.filter((a): a is Amenity => (AMENITIES as readonly string[]).includes(a)),
    photos: photoViews(p.photos),
    agent: agent
      ? {
          id: agent.id,
          firstName: agent.firstName,
          lastName: agent.lastName,
          phone: agent.phone,
          email: agent.email,
          photoUrl: agent.photoUrl,
        }
      : null,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** The back-office view: everything, in the listing's own text with its translations, exact location included. */
export function toAdminProperty(record: store.PropertyWithAgent): AdminProperty {
  const p = record.property;
  return Object.assign(commonView(record), {
    title: p.title,
    description: p.description,
    address: p.address,
    zipCode: p.zipCode,
    coordinates: coordinates(p.latitude, p.longitude),
    coordinatePrecision: p.coordinatePrecision,
    translations: p.translations,
    publishedOnPortal: p.publishedOnPortal,
    agentId: p.agentId,
    internalNotes: p.internalNotes,
    customFields: p.customFields,
  });
}

/** The event payload of a property (property.* events); shared with the bulk import. */
export function eventProperty(p: PropertyRow) {
  return {
    id: p.id,
    code: p.code,
    title: p.title,
    transactionType: p.transactionType,
    type: p.type,
    status: p.status,
    publishedOnPortal: p.publishedOnPortal,
    featured: p.featured,
    price: p.price,
    currency: p.currency,
    city: p.city,
    neighborhood: p.neighborhood,
    agentId: p.agentId,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** Everything a writer may set, as the columns hold it (derived columns included). */
export type PropertyColumns = Omit<store.NewProperty, 'id' | 'organizationId' | 'createdAt' | 'updatedAt'>;

/**
 * Translations as stored: trimmed titles; 400 for one in the organization's default language (the
 * listing's own title and description are in it).
 */
function translationsOf(
  translations: CreatePropertyBody['translations'],
  defaultLanguage: string,
): PropertyTranslations {
  const stored: PropertyTranslations = {};
  for (const [language, text] of Object.entries(translations ?? {})) {
    if (language === defaultLanguage)
      throw Errors.invalidField(
        `body.translations.${language}`,
        `${language} is the organization's default language: title and description hold it`,
      );
    stored[language] = { title: text.title.trim(), description: text.description };
  }
  return stored;
}

/**
 * Columns of a property from its writable fields: trimmed text, folded search columns (every
 * language's text), and the location the portal may show (properties.location.ts).
 */
export function propertyColumns(
  input: CreatePropertyBody,
  defaults: { defaultCurrency: string; defaultLanguage: string },
): PropertyColumns {
  const latitude = input.coordinates?.latitude ?? null;
  const longitude = input.coordinates?.longitude ?? null;
  const location = locationOf(input);
  const translations = translationsOf(input.translations, defaults.defaultLanguage);
  const translatedText = Object.values(translations).flatMap((text) => [text.title, text.description]);
  const city = input.city.trim();
  const neighborhood = input.neighborhood?.trim() || null;
  const title = input.title.trim();
  const description = input.description ?? '';
  return {
    code: input.code,
    title,
    description,
    transactionType: input.transactionType,
    type: input.type,
    status: input.status ?? 'ACTIVE',
    publishedOnPortal: input.publishedOnPortal ?? true,
    featured: input.featured ?? false,
    price: input.price,
    currency: input.currency ?? defaults.defaultCurrency,
    city,
    neighborhood,
    address: input.address ?? null,
    zipCode: input.zipCode ?? null,
    latitude,
    longitude,
    approximateLocation: location.addressVisibility === 'HIDDEN',
    ...location,
    translations,
    bedrooms: input.bedrooms ?? 0,
    bathrooms: input.bathrooms ?? 0,
    area: input.area ?? null,
    amenities: [...new Set(input.amenities ?? [])],
    photos: (input.photos ?? []).map(storedPhoto),
    agentId: input.agentId ?? null,
    internalNotes: input.internalNotes ?? null,
    customFields: input.customFields ?? {},
    searchCity: fold(city),
    searchNeighborhood: fold(neighborhood ?? ''),
    searchText: fold([input.code, title, description, city, neighborhood ?? '', ...translatedText].join(' ')),
  };
}

/** The writable fields of a stored property (the base a PATCH is merged onto). */
export function writableOf(p: PropertyRow): CreatePropertyBody {
  return {
    code: p.code,
    title: p.title,
    description: p.description,
    transactionType: p.transactionType,
    type: p.type,
    status: p.status,
    publishedOnPortal: p.publishedOnPortal,
    featured: p.featured,
    price: p.price,
    currency: p.currency,
    city: p.city,
    neighborhood: p.neighborhood,
    address: p.address,
    zipCode: p.zipCode,
    coordinates: coordinates(p.latitude, p.longitude),
    addressVisibility: p.addressVisibility,
    coordinatePrecision: p.coordinatePrecision,
    translations: p.translations,
    bedrooms: p.bedrooms,
    bathrooms: p.bathrooms,
    area: p.area,
    amenities: p.amenities as Amenity[],
    photos: p.photos,
    agentId: p.agentId,
    internalNotes: p.internalNotes,
    customFields: p.customFields,
  };
}

/**
 * A listing (a property in the back-office view, whatever its status) inside the caller's transaction,
 * or 404 for a malformed, unknown or another organization's id; `lock` for a change.
 */
export async function loadListing(
  tx: Tx,
  organizationId: string,
  propertyId: string,
  options: { lock?: boolean } = {},
) {
  const found = isId(propertyId, 'prop')
    ? await store.findPropertyById(tx, organizationId, propertyId, { portal: false, lock: options.lock })
    : null;
  if (!found) throw Errors.notFound('Property', propertyId);
  return found;
}

/**
 * True when `id` is a property of the organization, published or not: how back-office features
 * (deals, appointments) check a property reference.
 */
export async function isPropertyOf(tx: Tx, organizationId: string, id: string): Promise<boolean> {
  return (
    isId(id, 'prop') && (await store.findPropertyById(tx, organizationId, id, { portal: false })) !== null
  );
}
