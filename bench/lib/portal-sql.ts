/**
 * The portal's view of a property, written by hand for the SQL baselines (`properties-sql-server.ts`,
 * `detail-sql-server.ts`): the columns a portal answer needs, with the listing agent's card from a
 * left join, and the mapping of one row to the JSON the API documents (PortalProperty): approximate
 * locations lose address and zip code, coordinates are the portal's (already rounded in the data),
 * unknown amenity names are dropped, photos keep url and caption, timestamps as ISO text.
 */
import { AMENITIES } from '../../src/shared/property-vocabulary.ts';
import { isoSql } from './bare-pg-route.ts';

/** The select list over `properties p LEFT JOIN agents a` (agent columns prefixed `agent_`). */
export const PORTAL_COLUMNS = `p.id, p.code, p.title, p.description, p.transaction_type, p.type, p.status,
  p.featured, p.price, p.currency, p.city, p.neighborhood, p.address, p.zip_code, p.approximate_location,
  p.portal_latitude, p.portal_longitude, p.bedrooms, p.bathrooms, p.area, p.amenities, p.photos,
  ${isoSql('p.created_at')} AS created_at, ${isoSql('p.updated_at')} AS updated_at,
  a.id AS agent_id, a.first_name AS agent_first_name, a.last_name AS agent_last_name,
  a.phone AS agent_phone, a.email AS agent_email, a.photo_url AS agent_photo_url`;

/** The join the columns above read from. */
export const PORTAL_FROM = `properties p
  LEFT JOIN agents a ON a.organization_id = p.organization_id AND a.id = p.agent_id`;

/** What the portal shows: active and published. */
export const PORTAL_VISIBLE = `p.status = 'ACTIVE' AND p.published_on_portal`;

export interface PortalRow {
  id: string;
  code: string;
  title: string;
  description: string;
  transaction_type: string;
  type: string;
  status: string;
  featured: boolean;
  /** numeric: text from the driver. */
  price: string;
  currency: string;
  city: string;
  neighborhood: string | null;
  address: string | null;
  zip_code: string | null;
  approximate_location: boolean;
  portal_latitude: number | null;
  portal_longitude: number | null;
  bedrooms: number;
  bathrooms: number;
  area: string | null;
  amenities: string[];
  photos: Array<{ url: string; caption?: string | null }>;
  created_at: string;
  updated_at: string;
  agent_id: string | null;
  agent_first_name: string | null;
  agent_last_name: string | null;
  agent_phone: string | null;
  agent_email: string | null;
  agent_photo_url: string | null;
}

const KNOWN_AMENITIES = new Set<string>(AMENITIES);

/** One row as the portal answers it, members in the documented order. */
export function portalJson(row: PortalRow) {
  const hidden = row.approximate_location;
  return {
    id: row.id,
    code: row.code,
    title: row.title,
    description: row.description,
    transactionType: row.transaction_type,
    type: row.type,
    status: row.status,
    featured: row.featured,
    price: Number(row.price),
    currency: row.currency,
    city: row.city,
    neighborhood: row.neighborhood,
    address: hidden ? null : row.address,
    zipCode: hidden ? null : row.zip_code,
    coordinates:
      row.portal_latitude === null || row.portal_longitude === null
        ? null
        : { latitude: row.portal_latitude, longitude: row.portal_longitude },
    approximateLocation: row.approximate_location,
    bedrooms: row.bedrooms,
    bathrooms: row.bathrooms,
    area: row.area === null ? null : Number(row.area),
    amenities: row.amenities.filter((name) => KNOWN_AMENITIES.has(name)),
    photos: row.photos.map((photo) => ({ url: photo.url, caption: photo.caption ?? null })),
    agent:
      row.agent_id === null
        ? null
        : {
            id: row.agent_id,
            firstName: row.agent_first_name,
            lastName: row.agent_last_name,
            phone: row.agent_phone,
            email: row.agent_email,
            photoUrl: row.agent_photo_url,
          },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
