// The geo conditions of a listing search, on either pair of coordinates: the portal's (rounded as the
// listing's address visibility says) or the agency's exact ones. Values come as the caller binds them
// (the portal's statement cache binds each one; the agency's list passes them as they are).
import { between, sql, type AnyColumn, type SQL } from 'drizzle-orm';

const EARTH_RADIUS_KM = 6371;

export interface Coordinates {
  latitude: AnyColumn;
  longitude: AnyColumn;
}

type Value = (value: number) => unknown;
const asIs: Value = (value) => value;

/** Great-circle distance in km (haversine) from a point to the row's coordinates. */
export function distanceKm(columns: Coordinates, latitude: unknown, longitude: unknown): SQL {
  return sql`(2 * ${EARTH_RADIUS_KM} * asin(sqrt(
    power(sin(radians(${columns.latitude} - ${latitude}) / 2), 2) +
    cos(radians(${latitude})) * cos(radians(${columns.latitude})) *
    power(sin(radians(${columns.longitude} - ${longitude}) / 2), 2))))`;
}

/** Within `radiusKm` of a point: a bounding box an index can use first, then the exact circle. */
export function withinRadius(
  columns: Coordinates,
  near: { latitude: number; longitude: number; radiusKm: number },
  value: Value = asIs,
): SQL[] {
  const { latitude, longitude, radiusKm } = near;
  const dLat = (radiusKm / EARTH_RADIUS_KM) * (180 / Math.PI);
  const cosLat = Math.max(Math.cos((latitude * Math.PI) / 180), 0.01);
  const dLng = Math.min(180, dLat / cosLat);
  return [
    between(columns.latitude, value(latitude - dLat), value(latitude + dLat)),
    between(columns.longitude, value(longitude - dLng), value(longitude + dLng)),
    sql`${distanceKm(columns, value(latitude), value(longitude))} <= ${value(radiusKm)}`,
  ];
}
