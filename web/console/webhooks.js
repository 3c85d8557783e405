// Webhooks (issue 22, item 3): endpoints (create, edit, enable, delete), the signing secret on demand
// and its rotation, each endpoint's last 24 hours, its delivery log with every attempt, resend and
// recover.
import { $, action, call, el, say, showSecret, state, table, when, withMode } from './ui.js';

const selected = { webhook: null, editing: null };

/** The event-type picker, from the catalog; `checked` are the types ticked. */
export function renderEventTypes(checked = ['*']) {
  $('#event-types').replaceChildren(
    ...['*', ...state.eventTypes.map((type) => type.type)].map((type) =>
      el(
        'label',
        { className: 'check' },
        el('input', { type: 'checkbox', name: 'eventTypes', value: type, checked: checked.includes(type) }),
        type === '*' ? 'Every event' : type,
      ),
    ),
  );
}

function figures(stats) {
  if (!stats || stats.attempts === 0) return 'no attempts';
  const rate = Math.round(stats.successRate * 1000) / 10;
  return `${rate}% of ${stats.attempts} · p50 ${stats.p50Ms} ms · p95 ${stats.p95Ms} ms`;
}

export async function loadWebhooks() {
  const [{ data }, stats] = await Promise.all([
    call('GET', withMode('/console/api/webhooks')),
    call('GET', withMode('/console/api/webhooks/stats')),
  ]);
  const byId = new Map(stats.data.map((item) => [item.subscriptionId, item]));
  table(
    $('#webhooks-table'),
    ['Endpoint', 'Events', 'Enabled', 'Last 24 h (2xx, latency)', 'Created', ''],
    data.map((hook) => [
      el('span', { className: 'url' }, hook.url, hook.description ? el('small', {}, hook.description) : null),
      hook.eventTypes.join(', '),
      hook.enabled ? 'yes' : `no${hook.disabledReason ? ` (${hook.disabledReason})` : ''}`,
      figures(byId.get(hook.id)),
      when(hook.createdAt),
      el(
        'span',
        { className: 'actions' },
        action('Deliveries', { deliveries: hook.id, url: hook.url }),
        action('Send test event', { test: hook.id, url: hook.url }),
        action('Edit', { edit: hook.id }),
        action(hook.enabled ? 'Disable' : 'Enable', { toggle: hook.id, enabled: String(hook.enabled) }),
        action('Delete', { remove: hook.id }, 'danger'),
      ),
    ]),
  );
  return data;
}

function resetForm() {
  selected.editing = null;
  $('#webhook-form').reset();
  $('#webhook-form-title').textContent = 'Add an endpoint';
  $('#webhook-submit').textContent = 'Add endpoint';
  $('#webhook-cancel').hidden = true;
  renderEventTypes();
}

export async function saveWebhook(event) {
  event.preventDefault();
  const form = new FormData(event.target);
  const eventTypes = form.getAll('eventTypes');
  const body = {
    url: form.get('url'),
    eventTypes: eventTypes.length ? eventTypes : ['*'],
    description: form.get('description') ?? '',
  };
  if (selected.editing) {
    await call('PATCH', withMode(`/console/api/webhooks/${selected.editing}`), body);
    say(`Endpoint saved: ${body.url}`);
  } else {
    if (!body.description) delete body.description;
    const { data } = await call('POST', withMode('/console/api/webhooks'), body);
    showSecret('new-secret', data.secret, 'Signing secret (shown now; reveal it again from Deliveries)');
    say(`Endpoint added: ${data.url}`);
  }
  resetForm();
  await loadWebhooks();
}

async function editWebhook(id) {
  const { data } = await call('GET', withMode('/console/api/webhooks'));
  const hook = data.find((item) => item.id === id);
  if (!hook) throw new Error('This endpoint no longer exists.');
  selected.editing = id;
  $('#webhook-url').value = hook.url;
  $('#webhook-description').value = hook.description;
  renderEventTypes(hook.eventTypes);
  $('#webhook-form-title').textContent = 'Edit endpoint';
  $('#webhook-submit').textContent = 'Save changes';
  $('#webhook-cancel').hidden = false;
  $('#webhook-url').focus();
}

export const cancelEdit = () => resetForm();

// One endpoint: secret, recover, deliveries ----------------------------------------------------------
async function showDeliveries(id, url) {
  selected.webhook = id;
  const [{ data }, stats] = await Promise.all([
    call('GET', withMode(`/console/api/webhooks/${id}/deliveries?pageSize=50`)),
    call('GET', withMode('/console/api/webhooks/stats')),
  ]);
  $('#deliveries').hidden = false;
  $('#delivery-detail').hidden = true;
  if (url) $('#deliveries-title').textContent = `Endpoint ${url}`;
  $('#endpoint-stats').textContent = `Last 24 hours: ${figures(
    stats.data.find((item) => item.subscriptionId === id),
  )}.`;
  table(
    $('#deliveries-table'),
    ['Event', 'Status', 'Attempts', 'Last answer', 'Latency', 'Next retry', ''],
    data.map((delivery) => {
      const last = delivery.attempts.at(-1);
      return [
        el('span', {}, delivery.eventType, el('br'), el('code', {}, delivery.eventId)),
        el('span', { className: `badge ${delivery.status.toLowerCase()}` }, delivery.status),
        String(delivery.attemptCount),
        last ? `${last.statusCode ?? '—'} ${last.error ?? ''}`.trim() : '—',
        last ? duration(last) : '—',
        when(delivery.nextAttemptAt),
        el(
          'span',
          { className: 'actions' },
          action('Details', { detail: delivery.id }),
          delivery.status === 'PENDING' ? null : action('Resend', { resend: delivery.id }),
        ),
      ];
    }),
  );
}

const headerText = (headers) =>
  headers
    ? Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join('\n')
    : '—';

function pretty(body) {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

async function showDetail(id) {
  const { data } = await call('GET', withMode(`/console/api/deliveries/${id}`));
  $('#delivery-detail-title').textContent = `${data.eventType} — ${data.id}`;
  $('#delivery-request-body').textContent = pretty(data.requestBody);
  $('#delivery-attempts').replaceChildren(
    ...(data.attempts.length === 0 ? [el('p', {}, 'No attempt yet.')] : []),
    ...data.attempts.map((attempt) =>
      el(
        'article',
        { className: 'attempt' },
        el(
          'h5',
          {},
          `Attempt ${attempt.attempt} · ${when(attempt.startedAt)} · `,
          el(
            'span',
            {
              className: `badge ${attempt.statusCode >= 200 && attempt.statusCode < 300 ? 'succeeded' : 'failed'}`,
            },
            attempt.statusCode === null ? 'no answer' : String(attempt.statusCode),
          ),
          ` · ${duration(attempt)}`,
        ),
        attempt.error ? el('p', { className: 'error' }, attempt.error) : null,
        el('h6', {}, 'Request headers'),
        el('pre', {}, headerText(attempt.requestHeaders)),
        el('h6', {}, 'Response headers'),
        el('pre', {}, headerText(attempt.responseHeaders)),
        el('h6', {}, 'Response body (first 2 KB)'),
        el('pre', {}, attempt.responseBody || '—'),
      ),
    ),
  );
  $('#delivery-next').textContent =
    data.status === 'PENDING' ? `Next attempt: ${when(data.nextAttemptAt)}` : `Status: ${data.status}`;
  $('#delivery-detail').hidden = false;
  $('#delivery-detail-title').focus();
}

export async function onWebhookAction(event) {
  const button = event.target.closest('button');
  if (!button) return;
  const { test, deliveries, toggle, remove, edit, url } = button.dataset;
  if (test) {
    await call('POST', withMode(`/console/api/webhooks/${test}/test`));
    say('Test event sent.');
    await showDeliveries(test, url);
  } else if (deliveries) {
    await showDeliveries(deliveries, url);
  } else if (edit) {
    await editWebhook(edit);
  } else if (toggle) {
    await call('PATCH', withMode(`/console/api/webhooks/${toggle}`), {
      enabled: button.dataset.enabled !== 'true',
    });
    await loadWebhooks();
  } else if (remove) {
    if (!window.confirm('Delete this endpoint and its delivery log?')) return;
    await call('DELETE', withMode(`/console/api/webhooks/${remove}`));
    if (selected.webhook === remove) $('#deliveries').hidden = true;
    await loadWebhooks();
  }
}

export async function onDeliveryAction(event) {
  const button = event.target.closest('button');
  if (!button) return;
  if (button.dataset.detail) {
    await showDetail(button.dataset.detail);
  } else if (button.dataset.resend) {
    await call('POST', withMode(`/console/api/deliveries/${button.dataset.resend}/retry`));
    say('Delivery queued again.');
    await showDeliveries(selected.webhook);
  }
}

export async function revealSecret() {
  const ok = window.confirm(
    'Show the signing secret of this endpoint? Anyone who has it can sign deliveries your receiver accepts.',
  );
  if (!ok) return;
  const { data } = await call('POST', withMode(`/console/api/webhooks/${selected.webhook}/reveal-secret`));
  const until = data.previousSecretExpiresAt
    ? ` (the previous one also signs until ${when(data.previousSecretExpiresAt)})`
    : '';
  showSecret('new-secret', data.secret, `Signing secret${until}`);
}

export async function rotateSecret(event) {
  event.preventDefault();
  const overlapHours = Number(new FormData(event.target).get('overlapHours'));
  const warning =
    overlapHours === 0
      ? 'Rotate now? The current secret stops signing at once.'
      : `Rotate the signing secret? The current one keeps signing for ${overlapHours} hours.`;
  if (!window.confirm(warning)) return;
  const { data } = await call('POST', withMode(`/console/api/webhooks/${selected.webhook}/rotate-secret`), {
    overlapHours,
  });
  showSecret('new-secret', data.secret, 'New signing secret');
  say(
    data.previousSecretExpiresAt
      ? `Rotated: the old secret signs until ${when(data.previousSecretExpiresAt)}.`
      : 'Rotated.',
  );
}

export async function recover(event) {
  event.preventDefault();
  const since = new FormData(event.target).get('since');
  if (!since) throw new Error('Choose the time to recover from.');
  const { data } = await call('POST', withMode(`/console/api/webhooks/${selected.webhook}/recover`), {
    since: new Date(since).toISOString(),
  });
  say(
    `Queued ${data.requeued} deliveries (${data.retried} retried, ${data.added} missed)${data.hasMore ? '; more wait: recover again' : ''}.`,
  );
  await showDeliveries(selected.webhook);
}

/** Defaults the recover form to one hour ago, in the browser's time zone. */
export function defaultRecoverSince() {
  const hourAgo = new Date(Date.now() - 3_600_000);
  const local = new Date(hourAgo.getTime() - hourAgo.getTimezoneOffset() * 60_000);
  $('#recover-since').value = local.toISOString().slice(0, 16);
}

/** An attempt's duration; none while it is in flight or when its worker stopped (its error says which). */
function duration(attempt) {
  if (attempt.durationMs !== null) return `${attempt.durationMs} ms`;
  return attempt.error === null ? 'in flight' : 'no outcome';
}
