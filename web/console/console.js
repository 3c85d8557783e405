// The developer console (issue 22, docs/console.md): one module, no framework, no inline script
// (the Content-Security-Policy forbids it). It talks only to /console/api with the session cookie
// and sends the session's CSRF token on every change.

const $ = (selector) => document.querySelector(selector);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name in node && !name.includes('-')) node[name] = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  node.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return node;
}

const state = { csrf: '', mode: 'live', eventTypes: [] };

function say(message, isError = false) {
  const status = $('#status');
  status.textContent = message;
  status.classList.toggle('error', isError);
}

/** A console API call: JSON in and out; an error envelope becomes a thrown Error with its message. */
async function call(method, path, body) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = state.csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  if (response.status === 401) {
    say('Your console session has ended. Ask your operator for a new link.', true);
    throw new Error('signed out');
  }
  if (response.status === 204) return null;
  const json = await response.json();
  if (!response.ok) throw new Error(json?.error?.message ?? `HTTP ${response.status}`);
  return json;
}

const withMode = (path) => `${path}${path.includes('?') ? '&' : '?'}mode=${state.mode}`;
const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

function table(node, head, rows) {
  node.replaceChildren(
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        head.map((name) => el('th', { scope: 'col' }, name)),
      ),
    ),
    el(
      'tbody',
      {},
      rows.length === 0
        ? el('tr', {}, el('td', { colSpan: head.length, className: 'empty' }, 'Nothing yet.'))
        : rows.map((cells) =>
            el(
              'tr',
              {},
              cells.map((cell) => el('td', {}, cell)),
            ),
          ),
    ),
  );
}

// API keys ---------------------------------------------------------------------------------------
function showNewKey(key) {
  $('#new-key-value').textContent = key;
  $('#new-key').hidden = false;
  $('#copy-key').focus();
}

async function loadKeys() {
  const { data } = await call('GET', withMode('/console/api/keys'));
  table(
    $('#keys-table'),
    ['Key', 'Type', 'Mode', 'Scopes', 'Level', 'Limits', 'Created', 'Last used', 'Expires', 'Status', ''],
    data.map((key) => [
      el(
        'span',
        { className: 'key-cell' },
        el('code', {}, `${key.keyPrefix}…`),
        key.name ? el('small', {}, key.name) : null,
      ),
      key.type,
      key.mode,
      key.scopes.join(', '),
      String(key.accessLevel),
      `${key.rateLimitPerMinute}/min, ${key.writeLimitPerMinute} writes`,
      when(key.createdAt),
      when(key.lastUsedAt),
      when(key.expiresAt),
      key.status,
      key.status === 'deactivated'
        ? ''
        : el(
            'span',
            { className: 'actions' },
            el('button', { type: 'button', className: 'secondary', dataset: { roll: key.id } }, 'Roll'),
            el('button', { type: 'button', className: 'danger', dataset: { revoke: key.id } }, 'Revoke'),
          ),
    ]),
  );
}

async function createKey(event) {
  event.preventDefault();
  const form = new FormData(event.target);
  const body = { type: form.get('type'), mode: state.mode };
  if (form.get('name')) body.name = form.get('name');
  const { data } = await call('POST', '/console/api/keys', body);
  showNewKey(data.key);
  say(`Created ${data.keyPrefix}… (${data.type}, ${data.mode}).`);
  event.target.reset();
  await loadKeys();
}

async function onKeyAction(event) {
  const button = event.target.closest('button');
  if (!button) return;
  if (button.dataset.revoke) {
    if (!window.confirm('Revoke this key? Requests with it will fail at once.')) return;
    await call('POST', `/console/api/keys/${button.dataset.revoke}/revoke`);
    say('Key revoked.');
  } else if (button.dataset.roll) {
    const hours = window.prompt('Keep the old key valid for how many hours (0-168)?', '24');
    if (hours === null) return;
    const { data } = await call('POST', `/console/api/keys/${button.dataset.roll}/roll`, {
      overlapHours: Number(hours),
    });
    showNewKey(data.key.key);
    say(`Rolled: the old key works until ${when(data.rolledKey.expiresAt)}.`);
  }
  await loadKeys();
}

// Webhooks ---------------------------------------------------------------------------------------
async function loadEventTypes() {
  const { data } = await call('GET', '/console/api/event-types');
  state.eventTypes = data;
  $('#events-type').replaceChildren(
    el('option', { value: '' }, 'Any'),
    ...data.map((type) => el('option', { value: type.type, title: type.description }, type.type)),
  );
  $('#event-types').replaceChildren(
    ...['*', ...data.map((type) => type.type)].map((type, i) =>
      el(
        'label',
        { className: 'check' },
        el('input', { type: 'checkbox', name: 'eventTypes', value: type, checked: i === 0 }),
        type === '*' ? 'Every event' : type,
      ),
    ),
  );
}

async function loadWebhooks() {
  const { data } = await call('GET', withMode('/console/api/webhooks'));
  table(
    $('#webhooks-table'),
    ['Endpoint', 'Events', 'Enabled', 'Created', ''],
    data.map((hook) => [
      el('span', { className: 'url' }, hook.url),
      hook.eventTypes.join(', '),
      hook.enabled ? 'yes' : `no${hook.disabledReason ? ` (${hook.disabledReason})` : ''}`,
      when(hook.createdAt),
      el(
        'span',
        { className: 'actions' },
        el(
          'button',
          { type: 'button', className: 'secondary', dataset: { test: hook.id } },
          'Send test event',
        ),
        el(
          'button',
          { type: 'button', className: 'secondary', dataset: { deliveries: hook.id } },
          'Deliveries',
        ),
        el(
          'button',
          {
            type: 'button',
            className: 'secondary',
            dataset: { toggle: hook.id, enabled: String(hook.enabled) },
          },
          hook.enabled ? 'Disable' : 'Enable',
        ),
        el('button', { type: 'button', className: 'danger', dataset: { remove: hook.id } }, 'Delete'),
      ),
    ]),
  );
}

async function createWebhook(event) {
  event.preventDefault();
  const form = new FormData(event.target);
  const eventTypes = form.getAll('eventTypes');
  const body = { url: form.get('url'), eventTypes: eventTypes.length ? eventTypes : ['*'] };
  if (form.get('description')) body.description = form.get('description');
  const { data } = await call('POST', withMode('/console/api/webhooks'), body);
  $('#new-secret-value').textContent = data.secret;
  $('#new-secret').hidden = false;
  say(`Endpoint added: ${data.url}`);
  event.target.reset();
  await loadEventTypes();
  await loadWebhooks();
}

async function showDeliveries(id) {
  const { data } = await call('GET', withMode(`/console/api/webhooks/${id}/deliveries?pageSize=50`));
  $('#deliveries').hidden = false;
  $('#deliveries').dataset.webhook = id;
  table(
    $('#deliveries-table'),
    ['Event', 'Status', 'Attempts', 'Last answer', 'Latency', 'Next retry', ''],
    data.map((delivery) => {
      const last = delivery.attempts.at(-1);
      return [
        el('span', {}, delivery.eventType, el('br'), el('code', {}, delivery.eventId)),
        el('span', { className: `badge ${delivery.status.toLowerCase()}` }, delivery.status),
        String(delivery.attemptCount),
        last ? `${last.statusCode ?? '—'} ${last.error ?? ''} ${last.responseBody ?? ''}`.trim() : '—',
        last ? `${last.durationMs} ms` : '—',
        when(delivery.nextAttemptAt),
        delivery.status === 'PENDING'
          ? ''
          : el(
              'button',
              { type: 'button', className: 'secondary', dataset: { resend: delivery.id } },
              'Resend',
            ),
      ];
    }),
  );
}

async function onWebhookAction(event) {
  const button = event.target.closest('button');
  if (!button) return;
  const { test, deliveries, toggle, remove } = button.dataset;
  if (test) {
    await call('POST', withMode(`/console/api/webhooks/${test}/test`));
    say('Test event sent.');
    await showDeliveries(test);
  } else if (deliveries) {
    await showDeliveries(deliveries);
  } else if (toggle) {
    await call('PATCH', withMode(`/console/api/webhooks/${toggle}`), {
      enabled: button.dataset.enabled !== 'true',
    });
    await loadWebhooks();
  } else if (remove) {
    if (!window.confirm('Delete this endpoint and its delivery log?')) return;
    await call('DELETE', withMode(`/console/api/webhooks/${remove}`));
    $('#deliveries').hidden = true;
    await loadWebhooks();
  }
}

async function onDeliveryAction(event) {
  const button = event.target.closest('button[data-resend]');
  if (!button) return;
  await call('POST', withMode(`/console/api/deliveries/${button.dataset.resend}/retry`));
  say('Delivery queued again.');
  await showDeliveries($('#deliveries').dataset.webhook);
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
      el('button', { type: 'button', className: 'secondary', dataset: { event: item.id } }, 'View'),
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
async function loadLogs(event) {
  event?.preventDefault();
  const form = new FormData($('#logs-form'));
  const query = new URLSearchParams({ pageSize: '50' });
  for (const name of ['requestId', 'status']) if (form.get(name)) query.set(name, form.get(name));
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
const loaders = { keys: loadKeys, webhooks: loadWebhooks, events: loadEvents, logs: loadLogs };
let current = 'keys';

async function show(tab) {
  current = tab;
  for (const button of document.querySelectorAll('.tab')) {
    if (button.dataset.tab === tab) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  }
  for (const panel of document.querySelectorAll('.panel')) panel.hidden = panel.id !== tab;
  await loaders[tab]();
}

/** Runs an action, showing its failure in the status line instead of losing it. */
const guarded = (action) => async (event) => {
  try {
    await action(event);
  } catch (error) {
    if (error.message !== 'signed out') say(error.message, true);
  }
};

async function start() {
  const session = await call('GET', '/console/api/session');
  state.csrf = session.csrfToken;
  $('#org-name').textContent = `${session.organization.name} — developer console`;
  document.title = `${session.organization.name} — developer console`;
  $('#mode-switch').disabled = session.organization.testOrganizationId === null;
  $('#mode-switch').addEventListener(
    'change',
    guarded(async (event) => {
      state.mode = event.target.checked ? 'test' : 'live';
      document.body.classList.toggle('test-mode', state.mode === 'test');
      $('#new-key').hidden = true;
      $('#new-secret').hidden = true;
      $('#deliveries').hidden = true;
      await show(current);
    }),
  );
  for (const button of document.querySelectorAll('.tab'))
    button.addEventListener(
      'click',
      guarded(() => show(button.dataset.tab)),
    );
  $('#key-form').addEventListener('submit', guarded(createKey));
  $('#keys-table').addEventListener('click', guarded(onKeyAction));
  $('#copy-key').addEventListener(
    'click',
    guarded(async () => {
      await navigator.clipboard.writeText($('#new-key-value').textContent);
      say('Copied to the clipboard.');
    }),
  );
  $('#webhook-form').addEventListener('submit', guarded(createWebhook));
  $('#webhooks-table').addEventListener('click', guarded(onWebhookAction));
  $('#deliveries-table').addEventListener('click', guarded(onDeliveryAction));
  $('#logs-form').addEventListener('submit', guarded(loadLogs));
  $('#events-form').addEventListener('submit', guarded(loadEvents));
  $('#events-table').addEventListener('click', guarded(onEventAction));
  $('#sign-out').addEventListener(
    'click',
    guarded(async () => {
      await call('POST', '/console/api/sign-out');
      say('Signed out. Close this tab; a new console link signs you in again.');
      document.querySelector('main').inert = true;
    }),
  );
  await loadEventTypes();
  await show('keys');
  document.body.dataset.ready = 'true';
}

start().catch((error) => {
  if (error.message !== 'signed out') say(error.message, true);
});
