// The demo portal: connection, search, property detail with its forms. Booking and the finder
// live in their own modules. Everything goes through the public v1 API with a publishable key.
import { createClient, newIdempotencyKey } from './api.js';
import { $, el, photo, PLACEHOLDER } from './dom.js';
import { setupBooking } from './booking.js';
import { setupFinder } from './finder.js';
import { clearErrors, formValues, setStatus, showApiError, submitWith } from './forms.js';
import { amenityLabel, coordinatesLabel, enumLabel, priceLabel, transactionLabel } from './labels.js';

const PAGE_SIZE = 12;

const state = {
  client: null,
  portal: null,
  page: 1,
  query: {},
  property: null,
  returnFocus: null,
};

const client = () => state.client;
const track = (type, propertyId) => state.client?.track(type, propertyId);

/** The banner at the top (role=alert) for failures that belong to no form. */
function notify(text) {
  const notice = $('#notice');
  notice.textContent = text;
  notice.hidden = !text;
}

// ---- connection --------------------------------------------------------------------------------

/** WCAG contrast of a hex colour against white: the agency's colour is used only if it is readable. */
function contrastWithWhite(hex) {
  const match = /^#?([0-9a-f]{6})$/i.exec(hex ?? '');
  if (!match) return 0;
  const channel = (i) => {
    const c = parseInt(match[1].slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
  return 1.05 / (luminance + 0.05);
}

function applyBranding(portal) {
  $('#agency-name').textContent = portal.agencyName;
  document.title = `${portal.agencyName} · Demo portal`;
  const primary = portal.colors?.primary;
  if (contrastWithWhite(primary) >= 4.5) document.documentElement.style.setProperty('--brand', primary);
}

function option(value, label) {
  return el('option', { value }, label);
}

function fillSelect(select, items, label) {
  const first = select.options[0];
  select.replaceChildren(first, ...items.map((item) => option(item.value, label(item))));
}

/** Builds the search and finder controls from GET /v1/filters (only values that have listings). */
function buildFilters(filters) {
  const count = (item, text) => `${text} (${item.count})`;
  fillSelect($('#search-transactionType'), filters.transactionTypes, (i) =>
    count(i, transactionLabel(i.value)),
  );
  fillSelect($('#search-type'), filters.types, (i) => count(i, enumLabel(i.value)));
  fillSelect($('#search-city'), filters.cities, (i) => count(i, i.value));
  const bedrooms = [...new Set(filters.bedrooms.map((b) => b.value).filter((n) => n > 0))].sort(
    (a, b) => a - b,
  );
  fillSelect(
    $('#search-bedroomsMin'),
    bedrooms.map((value) => ({ value })),
    (i) => `${i.value}+`,
  );
  fillSelect($('#finder-propertyType'), filters.types, (i) => enumLabel(i.value));
  $('#finder-cities').replaceChildren(...filters.cities.map((c) => el('option', { value: c.value })));

  $('#search-form [data-amenity-list]').replaceChildren(
    ...filters.amenities.map((a) =>
      el(
        'label',
        { className: 'check' },
        el('input', { type: 'checkbox', name: a.flag, value: '1' }),
        ` ${amenityLabel(a.value)}`,
      ),
    ),
  );
  $('#finder-form [data-amenity-list]').replaceChildren(
    ...filters.amenities.map((a) =>
      el(
        'label',
        { className: 'check' },
        el('input', { type: 'checkbox', name: 'amenities', value: a.value }),
        ` ${amenityLabel(a.value)}`,
      ),
    ),
  );
}

function showConnected(portal, key) {
  const masked = `${key.slice(0, 20)}…`;
  $('#connection-text').textContent = `Connected to ${portal.agencyName} with publishable key ${masked}`;
  $('#connection-summary').hidden = false;
  $('#connect-form').hidden = true;
  $('#connection').classList.add('connected');
}

async function connect(baseUrl, key) {
  const form = $('#connect-form');
  const warning = $('#secret-key-warning');
  clearErrors(form);
  warning.hidden = true;
  notify('');
  setStatus(form, 'Connecting…');
  const candidate = createClient({ baseUrl, key });
  try {
    const portal = await candidate.portal();
    const filters = await candidate.filters();
    state.client = candidate;
    state.portal = portal;
    applyBranding(portal);
    buildFilters(filters);
    setStatus(form, '');
    showConnected(portal, key);
    track('PAGE_VIEW');
    await Promise.all([search(1), booking.load()]);
    openFromHash();
    return true;
  } catch (error) {
    state.client = null;
    $('#connection').classList.remove('connected');
    form.hidden = false;
    $('#connection-summary').hidden = true;
    if (error.code === 'SECRET_KEY_IN_BROWSER') {
      // The key is already burnt if this page was public: say so, and do not keep it on screen.
      $('#connect-key').value = '';
      setStatus(form, '');
      warning.hidden = false;
      warning.focus();
    } else {
      if (error.status === 401 || error.status === 403) {
        showApiError(form, { ...error, details: [{ field: 'key', message: error.message }] });
      } else showApiError(form, error);
      $('#connect-key').focus();
    }
    return false;
  }
}

// ---- search ------------------------------------------------------------------------------------

function searchQuery(form) {
  const values = formValues(form, { priceMin: 'number', priceMax: 'number' });
  const [sortBy, sortOrder] = (values.sort ?? 'createdAt:desc').split(':');
  delete values.sort;
  const query = { ...values, sortBy, sortOrder };
  for (const box of form.querySelectorAll('[data-amenity-list] input:checked')) query[box.name] = '1';
  return query;
}

function card(property) {
  const place = [property.neighborhood, property.city].filter(Boolean).join(', ');
  const facts = [
    property.bedrooms ? `${property.bedrooms} bed` : property.type === 'STUDIO' ? 'Studio' : null,
    property.bathrooms ? `${property.bathrooms} bath` : null,
    property.area ? `${property.area} m²` : null,
  ].filter(Boolean);
  const open = el(
    'a',
    { href: `#property/${property.id}`, className: 'card-link', dataset: { propertyId: property.id } },
    property.title,
  );
  return el(
    'li',
    {},
    el(
      'article',
      { className: 'card' },
      el(
        'div',
        { className: 'card-photo' },
        photo(property.photos?.[0]?.url, property.photos?.[0]?.caption ?? '', ''),
        el('span', { className: 'badge' }, transactionLabel(property.transactionType)),
      ),
      el(
        'div',
        { className: 'card-body' },
        el('h3', { className: 'card-title' }, open),
        el(
          'p',
          { className: 'price' },
          priceLabel(property.price, property.currency, property.transactionType),
        ),
        el('p', { className: 'place' }, place),
        el('p', { className: 'facts' }, facts.join(' · ')),
      ),
    ),
  );
}

async function search(page, { trackSearch = false } = {}) {
  const form = $('#search-form');
  const summary = $('#results-summary');
  const query = { ...searchQuery(form), page, pageSize: PAGE_SIZE };
  clearErrors(form);
  form.setAttribute('aria-busy', 'true');
  $('#results').setAttribute('aria-busy', 'true');
  try {
    const answer = await client().searchProperties(query);
    // GET /v1/properties answers {data, meta}; the client returns `data`, meta comes separately.
    renderResults(answer, page);
    state.page = page;
    state.query = query;
    if (trackSearch) track('SEARCH');
  } catch (error) {
    showApiError(form, error);
    summary.textContent = 'The search did not run: see the message above.';
  } finally {
    form.removeAttribute('aria-busy');
    $('#results').removeAttribute('aria-busy');
  }
}

function renderResults({ items, meta }, page) {
  const list = $('#results');
  list.replaceChildren(...items.map(card));
  const total = meta.total;
  const pages = Math.max(meta.totalPages, 1);
  $('#results-summary').textContent =
    total === 0
      ? 'No properties match these filters. Try removing one.'
      : `${total} ${total === 1 ? 'property' : 'properties'} found · page ${page} of ${pages}`;
  const pager = $('#pager');
  pager.hidden = pages <= 1;
  $('#pager-label').textContent = `Page ${page} of ${pages}`;
  $('[data-page="prev"]', pager).disabled = page <= 1;
  $('[data-page="next"]', pager).disabled = page >= pages;
}

// ---- property detail ---------------------------------------------------------------------------

function locationBlock(property) {
  const { coordinates } = property;
  const place = [property.neighborhood, property.city].filter(Boolean).join(', ');
  if (property.approximateLocation) {
    const link = coordinates
      ? el(
          'a',
          {
            href: `https://www.openstreetmap.org/#map=15/${coordinates.latitude}/${coordinates.longitude}`,
            rel: 'noopener noreferrer',
            target: '_blank',
          },
          'See the area on OpenStreetMap',
        )
      : null;
    return el(
      'div',
      { className: 'location' },
      el(
        'div',
        { className: 'area-map', role: 'img', 'aria-label': `Approximate area in ${place}` },
        el('span', { className: 'area' }),
      ),
      el(
        'div',
        {},
        el('p', {}, el('strong', {}, 'Approximate location: '), place),
        el(
          'p',
          { className: 'hint' },
          'The agency shows this home within an area of about 1 km',
          coordinates ? ` around ${coordinatesLabel(coordinates, 2)}` : '',
          '. The exact address is given when you visit.',
        ),
        link,
      ),
    );
  }
  const address = [property.address, [property.zipCode, property.city].filter(Boolean).join(' ')]
    .filter(Boolean)
    .join(', ');
  return el(
    'div',
    { className: 'location' },
    el(
      'div',
      { className: 'area-map', role: 'img', 'aria-label': `Location: ${address}` },
      el('span', { className: 'pin' }),
    ),
    el(
      'div',
      {},
      el('p', {}, el('strong', {}, 'Address: '), address || place),
      coordinates ? el('p', { className: 'hint' }, coordinatesLabel(coordinates, 5)) : null,
      coordinates
        ? el(
            'a',
            {
              href: `https://www.openstreetmap.org/?mlat=${coordinates.latitude}&mlon=${coordinates.longitude}#map=17/${coordinates.latitude}/${coordinates.longitude}`,
              rel: 'noopener noreferrer',
              target: '_blank',
            },
            'Open in OpenStreetMap',
          )
        : null,
    ),
  );
}

function gallery(property) {
  const photos = property.photos?.length ? property.photos : [{ url: PLACEHOLDER, caption: 'No photos yet' }];
  const main = photo(photos[0].url, photos[0].caption ?? property.title, 'gallery-main');
  const caption = el('figcaption', {}, photos[0].caption ?? '');
  const thumbs = photos.map((p, index) => {
    const button = el(
      'button',
      {
        type: 'button',
        className: 'thumb',
        'aria-label': `Photo ${index + 1}: ${p.caption ?? ''}`,
        'aria-pressed': index === 0 ? 'true' : 'false',
      },
      photo(p.url, '', ''),
    );
    button.addEventListener('click', () => {
      main.src = p.url || PLACEHOLDER;
      main.alt = p.caption ?? property.title;
      caption.textContent = p.caption ?? '';
      for (const other of button.parentElement.children) other.setAttribute('aria-pressed', 'false');
      button.setAttribute('aria-pressed', 'true');
    });
    return button;
  });
  // photo() swaps only the first failure; a later photo picked from the strip may fail too.
  main.addEventListener('error', () => {
    if (!main.src.endsWith(PLACEHOLDER)) main.src = PLACEHOLDER;
  });
  return el(
    'div',
    { className: 'gallery' },
    el('figure', {}, main, caption),
    photos.length > 1 ? el('div', { className: 'thumbs' }, thumbs) : null,
  );
}

function agentBlock(property) {
  const agent = property.agent;
  const contact = state.portal?.contact ?? {};
  const phone = agent?.phone ?? contact.phone;
  const messaging = contact.messagingPhone;
  const call = phone ? el('a', { href: `tel:${phone}`, className: 'button small' }, `Call ${phone}`) : null;
  call?.addEventListener('click', () => track('CALL_CLICK', property.id));
  const chat = messaging
    ? el(
        'a',
        {
          href: `https://wa.me/${messaging.replace(/\D/g, '')}`,
          className: 'button small',
          rel: 'noopener noreferrer',
          target: '_blank',
        },
        'Message us',
      )
    : null;
  chat?.addEventListener('click', () => track('MESSAGING_CLICK', property.id));
  const share = el('button', { type: 'button', className: 'button small' }, 'Copy link');
  const shared = el('span', { className: 'hint', role: 'status' });
  share.addEventListener('click', async () => {
    track('SHARE_CLICK', property.id);
    const url = `${location.origin}${location.pathname}#property/${property.id}`;
    try {
      await navigator.clipboard.writeText(url);
      shared.textContent = 'Link copied.';
    } catch {
      shared.textContent = url;
    }
  });
  return el(
    'div',
    { className: 'agent' },
    agent ? photo(agent.photoUrl, '', 'agent-photo') : null,
    el(
      'p',
      {},
      agent
        ? `Your agent: ${agent.firstName} ${agent.lastName}`
        : `Contact ${state.portal?.agencyName ?? 'us'}`,
    ),
    el('div', { className: 'agent-actions' }, call, chat, share, shared),
  );
}

function renderProperty(property) {
  $('#property-title').textContent = property.title;
  const facts = [
    ['Price', priceLabel(property.price, property.currency, property.transactionType)],
    ['Type', `${enumLabel(property.type)} · ${transactionLabel(property.transactionType)}`],
    ['Bedrooms', property.bedrooms],
    ['Bathrooms', property.bathrooms],
    ['Area', property.area ? `${property.area} m²` : null],
    ['Reference', property.code],
  ].filter(([, value]) => value !== null && value !== undefined);
  $('#property-body').replaceChildren(
    gallery(property),
    el(
      'div',
      { className: 'detail-text' },
      el(
        'dl',
        { className: 'facts-list' },
        facts.map(([term, value]) => [el('dt', {}, term), el('dd', {}, String(value))]),
      ),
      property.description ? el('p', {}, property.description) : null,
      property.amenities?.length
        ? el(
            'ul',
            { className: 'amenity-list', 'aria-label': 'Amenities' },
            property.amenities.map((a) => el('li', {}, amenityLabel(a))),
          )
        : null,
      locationBlock(property),
      agentBlock(property),
    ),
  );
  for (const form of [$('#lead-form'), $('#visit-form')]) {
    clearErrors(form);
    form.elements.propertyId.value = property.id;
  }
}

async function openProperty(id, trigger) {
  const dialog = $('#property-dialog');
  state.returnFocus = trigger ?? document.activeElement;
  try {
    const property = await client().getProperty(id);
    state.property = property;
    renderProperty(property);
    if (!dialog.open) dialog.showModal();
    $('#property-title').focus();
    history.replaceState(null, '', `#property/${id}`);
    track('PROPERTY_VIEW', id);
  } catch (error) {
    notify(
      error.status === 404
        ? 'That property is no longer on the portal.'
        : `Could not open the property: ${error.message}`,
    );
  }
}

function openFromHash() {
  const match = /^#property\/([\w-]+)$/.exec(location.hash);
  if (match && state.client) void openProperty(match[1]);
}

/** UTM tags of the page's own address, passed on with leads (utm_source -> utmSource). */
function utmFromAddress() {
  const params = new URLSearchParams(location.search);
  const utm = {};
  for (const part of ['source', 'medium', 'campaign', 'content']) {
    const value = params.get(`utm_${part}`);
    if (value) utm[`utm${part[0].toUpperCase()}${part.slice(1)}`] = value.slice(0, 200);
  }
  return utm;
}

function setupPropertyDialog() {
  const dialog = $('#property-dialog');
  $('#property-title').tabIndex = -1;
  $('[data-close]', dialog).addEventListener('click', () => dialog.close());
  // A click on the backdrop (outside the dialog box) closes it too.
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog) dialog.close();
  });
  dialog.addEventListener('close', () => {
    if (location.hash.startsWith('#property/'))
      history.replaceState(null, '', location.pathname + location.search);
    state.returnFocus?.focus?.();
  });

  const lead = $('#lead-form');
  lead.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { ...formValues(lead), ...utmFromAddress() };
    if (state.property?.transactionType) body.interestedIn = state.property.transactionType;
    const outcome = await submitWith(lead, (key) => client().submitLead(body, key), newIdempotencyKey);
    if (!outcome.ok) return;
    track('LEAD_FORM', body.propertyId);
    for (const name of ['firstName', 'phone', 'email', 'message']) lead.elements[name].value = '';
    setStatus(lead, `Thank you, ${body.firstName}: an agent will contact you soon.`, 'success');
  });

  const visit = $('#visit-form');
  visit.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = formValues(visit);
    track('SCHEDULE_CLICK', body.propertyId);
    const outcome = await submitWith(visit, (key) => client().requestVisit(body, key), newIdempotencyKey);
    if (!outcome.ok) return;
    setStatus(
      visit,
      `Visit request received (${outcome.result.status}): the agency will confirm the day and time with you.`,
      'success',
    );
  });

  $('[data-book-property]', visit).addEventListener('click', () => {
    const property = state.property;
    track('SCHEDULE_CLICK', property?.id);
    dialog.close();
    booking.forProperty(property);
  });
}

// ---- start -------------------------------------------------------------------------------------

const booking = setupBooking({ client, notify });
const finder = setupFinder({ client, track, openProperty });

function setupSearch() {
  const form = $('#search-form');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!state.client) return notify('Connect with a publishable key first.');
    void search(1, { trackSearch: true });
  });
  form.addEventListener('reset', () => {
    clearErrors(form);
    if (state.client) setTimeout(() => void search(1), 0);
  });
  $('#pager [data-page="prev"]').addEventListener('click', () => void search(state.page - 1));
  $('#pager [data-page="next"]').addEventListener('click', async () => {
    await search(state.page + 1);
    $('#results-summary').scrollIntoView({ block: 'start' });
  });
  $('#results').addEventListener('click', (event) => {
    const link = event.target.closest('[data-property-id]');
    if (!link) return;
    event.preventDefault();
    void openProperty(link.dataset.propertyId, link);
  });
}

/** The connect form's handlers, at once: a visitor who types before config.json arrives is not lost. */
function setupConnection() {
  const form = $('#connect-form');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const { apiBaseUrl = '', key = '' } = formValues(form);
    if (!key)
      return showApiError(form, {
        details: [{ field: 'key', message: 'Enter a publishable key (service_pk_…)' }],
      });
    void connect(apiBaseUrl, key);
  });
  $('#connection-change').addEventListener('click', () => {
    $('#connection').classList.remove('connected');
    $('#connection-summary').hidden = true;
    form.hidden = false;
    $('#connect-key').focus();
  });
}

/** What the serving service says (config.json), unless the visitor has typed or connected already. */
function applyConfig(config) {
  const base = $('#connect-base');
  const key = $('#connect-key');
  const typed = base.value !== '' || key.value !== '' || $('#connection').classList.contains('connected');
  if (typed) return;
  base.value = config.apiBaseUrl ?? '';
  if (config.publishableKey) {
    key.value = config.publishableKey;
    void connect(config.apiBaseUrl ?? '', config.publishableKey);
  } else {
    $('#results-summary').textContent =
      'Enter the API address and a publishable key above to see the listings.';
  }
}

/** When the service serves this page it says which key to start with; a static copy asks for one. */
async function loadConfig() {
  try {
    const response = await fetch('config.json', { cache: 'no-store' });
    if (response.ok) return await response.json();
  } catch {
    // Served without the service (a static copy): the visitor types the key in.
  }
  return {};
}

setupSearch();
setupPropertyDialog();
finder.start();
window.addEventListener('hashchange', openFromHash);
setupConnection();
applyConfig(await loadConfig());
document.body.dataset.ready = 'true';
