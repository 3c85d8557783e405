import type { AdminApiKey } from './api-types.ts';
import type { CliCommand } from './command.ts';

/** `key revoke KEY_ID`: PATCH /admin/v1/api-keys/{keyId} with status deactivated. */
export const keyRevoke: CliCommand<Record<string, never>> = {
  name: 'key revoke',
  summary: 'Deactivate an API key (final: a deactivated key cannot be reactivated)',
  positionals: ['KEY_ID'],
  flags: {},
  notes: 'To stop a key for a while instead, suspend it through PATCH /admin/v1/api-keys/{keyId}.',
  async run({ args, client }) {
    const [keyId = ''] = args;
    const key = await client.request<AdminApiKey>(
      'PATCH',
      `/admin/v1/api-keys/${encodeURIComponent(keyId)}`,
      {
        status: 'deactivated',
      },
    );
    const summary =
      `Deactivated ${key.mode} ${key.type.replaceAll('_', ' ')} key ${key.id} (${key.keyPrefix}...) ` +
      `of organization ${key.organizationId}. Requests with it now get 401.`;
    return { data: key, summary };
  },
};
