import type { CreatedApiKey } from './api-types.ts';
import type { CliCommand, FlagSpecs } from './command.ts';

const flags = {
  org: {
    kind: 'string',
    placeholder: 'ORG_ID',
    description: 'organization (a test twin id makes a test key)',
    required: true,
  },
  type: {
    kind: 'string',
    placeholder: 'TYPE',
    description: 'publishable|secret|read_only_secret',
    required: true,
  },
  mode: { kind: 'string', placeholder: 'MODE', description: 'live|test (default: live, test for a twin)' },
  name: { kind: 'string', placeholder: 'NAME', description: 'label to tell keys apart' },
  scopes: {
    kind: 'list',
    placeholder: 'a,b',
    description: "comma-separated scopes (default: the key type's set)",
  },
  'access-level': { kind: 'integer', placeholder: 'N', description: '1-3 (default 1)' },
  'rate-limit': {
    kind: 'integer',
    placeholder: 'N',
    description: "requests per minute (default: the key type's)",
  },
  'write-limit': {
    kind: 'integer',
    placeholder: 'N',
    description: "writes per minute (default: the key type's)",
  },
  agent: { kind: 'string', placeholder: 'ID', description: 'agent the key sends messages as' },
  'expires-at': {
    kind: 'string',
    placeholder: 'ISO',
    description: 'expiry, ISO 8601 date-time in the future',
  },
} as const satisfies FlagSpecs;

/** `key create`: POST /admin/v1/organizations/{orgId}/api-keys. */
export const keyCreate: CliCommand<typeof flags> = {
  name: 'key create',
  summary: 'Create an API key (the key is shown only once)',
  flags,
  async run({ flags: f, client }) {
    const key = await client.request<CreatedApiKey>(
      'POST',
      `/admin/v1/organizations/${encodeURIComponent(f.org)}/api-keys`,
      {
        type: f.type,
        mode: f.mode,
        name: f.name,
        scopes: f.scopes,
        accessLevel: f['access-level'],
        rateLimitPerMinute: f['rate-limit'],
        writeLimitPerMinute: f['write-limit'],
        agentId: f.agent,
        expiresAt: f['expires-at'],
      },
    );
    const summary = [
      `Created ${key.mode} ${key.type.replaceAll('_', ' ')} key ${key.id} for organization ${key.organizationId}`,
      ...(key.name === null ? [] : [`  name:         ${key.name}`]),
      `  scopes:       ${key.scopes.length > 0 ? key.scopes.join(', ') : 'none'}` +
        (key.scopesFollowDefaults ? ' (and the defaults later versions add)' : ''),
      `  access level: ${key.accessLevel}`,
      `  limits:       ${key.rateLimitPerMinute} requests/min, ${key.writeLimitPerMinute} writes/min`,
      `  expires:      ${key.expiresAt ?? 'never'}`,
      '',
      `  ${key.key}`,
      '',
      'This key is shown only once: store it now, it cannot be retrieved later.',
    ].join('\n');
    return { data: key, summary };
  },
};
