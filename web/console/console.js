// The developer console (issue 22, docs/console.md): plain modules, no framework, no inline script
// (the Content-Security-Policy forbids it). They talk only to /console/api with the session cookie
// and send the session's CSRF token on every change (ui.js). This module: events, request logs and
// the shell (tabs, live/test, sign-out).
import { loadEmails, onEmailAction } from './emails.js';
import { createKey, loadKeys, loadLimits, onKeyAction } from './keys.js';
import { $, action, call, copyButton, el, guarded, say, state, table, when, withMode } from './ui.js';
import {
  cancelEdit,
  defaultRecoverSince,
  loadWebhooks,
  onDeliveryAction,
  onWebhookAction,
  recover,
  renderEventTypes,
  revealSecret,
  rotateSecret,
  saveWebhook,
} from './webhooks.js';

async function loadEventTypes() {
  const { data } = await call('GET', '/console/api/event-types');
  state.eventTypes = data;
  $('#events-type').replaceChildren(
    el('option', { value: '' }, 'Any'),
    ...data.map((type) => el('option', { value: type.type, title: type.description }, type.type)),
  );
  renderEventTypes();
}

// Events -----------------------------------------------------------------------------------------
const eventsById = new Map();

async function loadEvents(event) {
  event?.preventDefault();
  const type = $('#events-type').value;
  const query = new URLSearchParams({ pageSize: '50' });
  if (type) query.set('type', type);
  const { data } = await call('GET', withMode(`/console/api/events?${query}`));
  eventsById.clear();
  for (const item of data) eventsById.set(item.id, item);
  table(
    $('#events-table'),
    ['#', 'Time', 'Type', 'Actor', 'Id', ''],
    data.map((item) => [
      String(item.sequence),
      when(item.timestamp),
      item.type,
      `${item.actor.kind}${item.actor.userId ? ` ${item.actor.userId}` : ''}`,
      el('code', {}, item.id),
      action('View', { event: item.id }),
    ]),
  );
}

async function onEventAction(event) {
  const button = event.target.closest('button[data-event]');
  if (!button) return;
  const item = eventsById.get(button.dataset.event);
  $('#event-detail').hidden = false;
  $('#event-detail-title').textContent = `${item.type} — ${item.id}`;
  $('#event-json').textContent = JSON.stringify(item, null, 2);
  const { data } = await call('GET', withMode(`/console/api/events/${item.id}/deliveries`));
  table(
    $('#event-deliveries-table'),
    ['Endpoint', 'Status', 'Attempts'],
    data.map((delivery) => [
      el('span', { className: 'url' }, delivery.url),
      el('span', { className: `badge ${delivery.status.toLowerCase()}` }, delivery.status),
      String(delivery.attemptCount),
    ]),
  );
  $('#event-json').focus();
}

// Request logs -----------------------------------------------------------------------------------
/** The key filter: every key of the mode, by prefix and name (kept when the list is refreshed). */
async function loadLogKeys() {
  const select = $('#logs-key');
  const chosen = select.value;
  const { data } = await call('GET', withMode('/console/api/keys'));
  select.replaceChildren(
    el('option', { value: '' }, 'Any'),
    ...data.map((key) =>
      el('option', { value: key.id }, `${key.keyPrefix}…${key.name ? ` (${key.name})` : ''}`),
    ),
  );
  select.value = data.some((key) => key.id === chosen) ? chosen : '';
}

async function loadLogs(event) {
  event?.preventDefault();
  if (!event) await loadLogKeys();
  const form = new FormData($('#logs-form'));
  const query = new URLSearchParams({ pageSize: '50' });
  for (const name of ['requestId', 'status', 'keyId', 'path'])
    if (form.get(name)) query.set(name, form.get(name));
  // datetime-local is the browser's local time: sent as an instant.
  for (const name of ['since', 'until'])
    if (form.get(name)) query.set(name, new Date(form.get(name)).toISOString());
  const { data } = await call('GET', withMode(`/console/api/request-logs?${query}`));
  table(
    $('#logs-table'),
    ['Time', 'Request id', 'Key', 'Method', 'Path', 'Operation', 'Status', 'Error', 'Latency', 'IP'],
    data.map((line) => [
      when(line.at),
      el('code', {}, line.requestId),
      line.keyPrefix ? el('code', {}, `${line.keyPrefix}…`) : '—',
      line.method,
      el('span', { className: 'url' }, line.path),
      line.mcpTool ? `${line.operationId ?? ''} (${line.mcpTool})` : (line.operationId ?? '—'),
      el('span', { className: `badge s${String(line.status)[0]}xx` }, String(line.status)),
      line.errorCode ? `${line.errorCode}: ${line.errorMessage ?? ''}` : '',
      `${line.latencyMs} ms`,
      line.ip ?? '—',
    ]),
  );
}

// Shell ------------------------------------------------------------------------------------------
const loaders = {
  keys: loadKeys,
  webhooks: loadWebhooks,
  events: loadEvents,
  emails: loadEmails,
  logs: loadLogs,
  limits: loadLimits,
};
/** The limits tab refreshes itself every 5 seconds while it is shown. */
const LIMITS_REFRESH_MS = 5_000;
let current = 'keys';
let refresher = null;

async function show(tab) {
  current = tab;
  say('');
  for (const button of document.querySelectorAll('.tab')) {
    if (button.dataset.tab === tab) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  }
  for (const panel of document.querySelectorAll('.panel')) panel.hidden = panel.id !== tab;
  clearInterval(refresher);
  refresher = null;
  await loaders[tab]();
  if (tab === 'limits') refresher = setInterval(guarded(loadLimits), LIMITS_REFRESH_MS);
}

const on = (selector, type, run) => $(selector).addEventListener(type, guarded(run));

async function start() {
  const session = await call('GET', '/console/api/session');
  state.csrf = session.csrfToken;
  $('#org-name').textContent = `${session.organization.name} — developer console`;
  document.title = `${session.organization.name} — developer console`;
  $('#mode-switch').disabled = session.organization.testOrganizationId === null;
  on('#mode-switch', 'change', async (event) => {
    state.mode = event.target.checked ? 'test' : 'live';
    document.body.classList.toggle('test-mode', state.mode === 'test');
    for (const id of ['#new-key', '#new-secret', '#deliveries']) $(id).hidden = true;
    cancelEdit();
    await show(current);
  });
  for (const button of document.querySelectorAll('.tab'))
    button.addEventListener(
      'click',
      guarded(() => show(button.dataset.tab)),
    );
  on('#key-form', 'submit', createKey);
  on('#keys-table', 'click', onKeyAction);
  copyButton('new-key');
  copyButton('new-secret');
  on('#webhook-form', 'submit', saveWebhook);
  on('#webhook-cancel', 'click', cancelEdit);
  on('#webhooks-table', 'click', onWebhookAction);
  on('#deliveries-table', 'click', onDeliveryAction);
  on('#reveal-secret', 'click', revealSecret);
  on('#rotate-form', 'submit', rotateSecret);
  on('#recover-form', 'submit', recover);
  on('#logs-form', 'submit', loadLogs);
  on('#events-form', 'submit', loadEvents);
  on('#events-table', 'click', onEventAction);
  on('#emails-form', 'submit', loadEmails);
  on('#emails-table', 'click', onEmailAction);
  on('#limits-refresh', 'click', loadLimits);
  on('#sign-out', 'click', async () => {
    await call('POST', '/console/api/sign-out');
    clearInterval(refresher);
    say('Signed out. Close this tab; a new console link signs you in again.');
    document.querySelector('main').inert = true;
  });
  defaultRecoverSince();
  await loadEventTypes();
  await show('keys');
  document.body.dataset.ready = 'true';
}

start().catch((error) => {
  if (error.message !== 'signed out') say(error.message, true);
});
