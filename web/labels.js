// Words and numbers for people: API values (APARTMENT, petFriendly, 325000) as the page shows them.

const TRANSACTION = { SALE: 'For sale', RENT: 'For rent', SALE_OR_RENT: 'Sale or rent' };
const CRITERIA = {
  transactionType: 'Buy or rent',
  propertyType: 'Property type',
  budget: 'Budget',
  location: 'Location',
  bedrooms: 'Bedrooms',
  amenities: 'Amenities',
};
const OUTCOME = { match: 'Match', partial: 'Partial', miss: 'No match' };

export const transactionLabel = (value) => TRANSACTION[value] ?? value;
export const criterionLabel = (value) => CRITERIA[value] ?? value;
export const outcomeLabel = (value) => OUTCOME[value] ?? value;

/** APARTMENT -> Apartment, VIDEO_CALL -> Video call */
export function enumLabel(value) {
  const text = String(value).toLowerCase().replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** airConditioning -> Air conditioning */
export function amenityLabel(value) {
  const text = String(value)
    .replace(/([A-Z])/g, ' $1')
    .toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** 325000 EUR -> €325,000 (per month for rentals) */
export function priceLabel(price, currency, transactionType) {
  let text;
  try {
    text = new Intl.NumberFormat('en', {
      style: 'currency',
      currency: currency || 'EUR',
      maximumFractionDigits: 0,
    }).format(price);
  } catch {
    text = `${price} ${currency ?? ''}`.trim();
  }
  return transactionType === 'RENT' ? `${text} / month` : text;
}

/** 2026-11-24 -> Tuesday 24 November (the date as written, whatever the visitor's time zone) */
export function dayLabel(isoDate, style = 'long') {
  const [year, month, day] = isoDate.split('-').map(Number);
  return new Intl.DateTimeFormat('en-GB', {
    weekday: style,
    day: 'numeric',
    month: style,
    timeZone: 'UTC',
  }).format(new Date(Date.UTC(year, month - 1, day)));
}

export function monthLabel(month, year) {
  return new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(Date.UTC(year, month, 1)),
  );
}

/** Degrees as people read them: 36.72° N, 4.42° W */
export function coordinatesLabel({ latitude, longitude }, decimals) {
  const lat = `${Math.abs(latitude).toFixed(decimals)}° ${latitude >= 0 ? 'N' : 'S'}`;
  const lon = `${Math.abs(longitude).toFixed(decimals)}° ${longitude >= 0 ? 'E' : 'W'}`;
  return `${lat}, ${lon}`;
}
