// API keys (issue 22, item 2) and the live usage of their rate limits (item 6).
import { $, action, call, el, say, showSecret, state, table, when, withMode } from './ui.js';

export async function loadKeys() {
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
            action('Roll', { roll: key.id }),
            action('Revoke', { revoke: key.id }, 'danger'),
          ),
    ]),
  );
}

export async function createKey(event) {
  event.preventDefault();
  const form = new FormData(event.target);
  const body = { type: form.get('type'), mode: state.mode };
  if (form.get('name')) body.name = form.get('name');
  const { data } = await call('POST', '/console/api/keys', body);
  showSecret('new-key', data.key, 'Copy this key now.');
  say(`Created ${data.keyPrefix}… (${data.type}, ${data.mode}).`);
  event.target.reset();
  await loadKeys();
}

export async function onKeyAction(event) {
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
    showSecret('new-key', data.key.key, 'Copy this key now.');
    say(`Rolled: the old key works until ${when(data.rolledKey.expiresAt)}.`);
  }
  await loadKeys();
}

// Limits -----------------------------------------------------------------------------------------
const POLICY_NAMES = {
  key: 'Requests',
  'key-writes': 'Writes',
  'organization-writes': 'Writes (whole organization)',
};

function usage(policy) {
  const used = policy.limit - policy.remaining;
  return el(
    'span',
    { className: 'usage' },
    el('meter', {
      min: 0,
      max: policy.limit,
      value: used,
      high: policy.limit * 0.8,
      title: `${used} of ${policy.limit}`,
    }),
    ` ${used} / ${policy.limit}`,
  );
}

const resets = (policy) => (policy.resetSeconds > 0 ? `in ${policy.resetSeconds} s` : 'nothing counted');

export async function loadLimits() {
  const { data } = await call('GET', withMode('/console/api/limits'));
  const rows = [
    [
      el('strong', {}, 'Organization'),
      POLICY_NAMES['organization-writes'],
      usage(data.organizationWrites),
      resets(data.organizationWrites),
    ],
    ...data.keys.flatMap((key) =>
      key.policies.map((policy, i) => [
        i === 0
          ? el(
              'span',
              { className: 'key-cell' },
              el('code', {}, `${key.keyPrefix}…`),
              key.name ? el('small', {}, key.name) : null,
            )
          : '',
        POLICY_NAMES[policy.name] ?? policy.name,
        usage(policy),
        resets(policy),
      ]),
    ),
  ];
  table($('#limits-table'), ['Key', 'Policy (per minute)', 'Used in this window', 'Window resets'], rows);
  $('#limits-updated').textContent = `Updated ${new Date().toLocaleTimeString()}`;
}
