import type { AdminOrganization } from './api-types.ts';
import { PLANS } from '../shared/plans.ts';
import type { CliCommand, FlagSpecs } from './command.ts';

const flags = {
  name: { kind: 'string', placeholder: 'NAME', description: 'organization name', required: true },
  plan: { kind: 'string', placeholder: 'PLAN', description: PLANS.join('|'), required: true },
  country: {
    kind: 'string',
    placeholder: 'XX',
    description: 'default country, ISO 3166-1 alpha-2 (default US)',
  },
  currency: { kind: 'string', placeholder: 'XXX', description: 'default currency, ISO 4217 (default USD)' },
  'write-limit': {
    kind: 'integer',
    placeholder: 'N',
    description: "organization-wide writes per minute (default: the plan's)",
  },
} as const satisfies FlagSpecs;

/** `org create`: POST /admin/v1/organizations. */
export const orgCreate: CliCommand<typeof flags> = {
  name: 'org create',
  summary: 'Create an organization and its test twin',
  flags,
  async run({ flags: f, client }) {
    const org = await client.request<AdminOrganization>('POST', '/admin/v1/organizations', {
      name: f.name,
      plan: f.plan,
      defaultCountry: f.country,
      defaultCurrency: f.currency,
      writeLimitPerMinute: f['write-limit'],
    });
    const summary = [
      `Created organization ${org.id} "${org.name}" (${org.plan})`,
      `  test twin:      ${org.testOrganizationId ?? 'none'}`,
      `  defaults:       ${org.defaultCountry}, ${org.defaultCurrency}`,
      `  writes per min: ${org.effectiveWriteLimitPerMinute}${org.writeLimitPerMinute === null ? ' (plan default)' : ''}`,
      '',
      `Next: agency-crm key create --org ${org.id} --type secret`,
    ].join('\n');
    return { data: org, summary };
  },
};
