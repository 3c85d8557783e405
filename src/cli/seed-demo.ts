import type { DemoSeed } from './api-types.ts';
import type { CliCommand } from './command.ts';

/** `seed demo`: POST /admin/v1/demo-seed. Each run creates a new demo agency with new keys. */
export const seedDemo: CliCommand<Record<string, never>> = {
  name: 'seed demo',
  summary: 'Create a demo agency with a publishable and a secret key',
  flags: {},
  notes: 'Every run creates a new "Demo Realty" organization with fresh keys.',
  async run({ client }) {
    const seed = await client.request<DemoSeed>('POST', '/admin/v1/demo-seed');
    const { organization } = seed;
    const summary = [
      `Demo agency "${organization.name}" (${organization.plan}) created: ${organization.id}`,
      `  publishable key: ${seed.publishableKey}`,
      `  secret key:      ${seed.secretKey}   (every scope, access level 3)`,
      '',
      'These keys are shown only once: store them now, they cannot be retrieved later.',
      `Try it: curl -s ${client.baseUrl.replace(/\/$/, '')}/v1/me -H 'X-API-Key: <secret key>'`,
    ].join('\n');
    return { data: seed, summary };
  },
};
