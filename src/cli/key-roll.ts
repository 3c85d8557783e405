import type { CreatedApiKey } from './api-types.ts';
import type { CliCommand, FlagSpecs } from './command.ts';

const flags = {
  'overlap-hours': {
    kind: 'integer',
    placeholder: 'N',
    description: 'hours the old key keeps working, 0-168 (default 24; 0 = it stops now)',
  },
} as const satisfies FlagSpecs;

/** The answer's `data` of a roll (declared here: the generated client predates the route). */
interface RolledApiKey {
  key: CreatedApiKey;
  rolledKey: { id: string; expiresAt: string };
}

/** `key roll KEY_ID`: POST /admin/v1/api-keys/{keyId}/roll. */
export const keyRoll: CliCommand<typeof flags> = {
  name: 'key roll',
  summary: 'Replace an API key by a new one with the same settings (the new key is shown only once)',
  positionals: ['KEY_ID'],
  flags,
  notes:
    'The old key keeps working for the overlap, then answers 401; a deactivated or expired key cannot be rolled.',
  async run({ flags: f, args, client }) {
    const [keyId = ''] = args;
    const rolled = await client.request<RolledApiKey>(
      'POST',
      `/admin/v1/api-keys/${encodeURIComponent(keyId)}/roll`,
      { overlapHours: f['overlap-hours'] },
    );
    const { key, rolledKey } = rolled;
    const summary = [
      `Rolled ${key.mode} ${key.type.replaceAll('_', ' ')} key ${rolledKey.id} of organization ${key.organizationId}`,
      `  new key:      ${key.id} (same scopes, access level, limits and agent)`,
      `  old key:      works until ${rolledKey.expiresAt}, then answers 401`,
      `  new expires:  ${key.expiresAt ?? 'never'}`,
      '',
      `  ${key.key}`,
      '',
      'This key is shown only once: store it now, it cannot be retrieved later.',
    ].join('\n');
    return { data: rolled, summary };
  },
};
