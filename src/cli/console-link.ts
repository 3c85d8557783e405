import type { CliCommand, FlagSpecs } from './command.ts';

const flags = {
  org: { kind: 'string', placeholder: 'ORG_ID', description: 'the (live) organization', required: true },
} as const satisfies FlagSpecs;

interface ConsoleLink {
  url: string;
  expiresAt: string;
}

/** `console-link --org ORG_ID`: POST /admin/v1/organizations/{orgId}/console-links. */
export const consoleLink: CliCommand<typeof flags> = {
  name: 'console-link',
  summary: "Mint a one-time link to an organization's developer console (15 minutes, works once)",
  flags,
  notes: 'The link points at PUBLIC_URL when the service has one, else at AGENCY_CRM_URL.',
  async run({ flags: f, client }) {
    const link = await client.request<ConsoleLink>(
      'POST',
      `/admin/v1/organizations/${encodeURIComponent(f.org)}/console-links`,
    );
    const summary = [
      `Console link for ${f.org} (valid until ${link.expiresAt}, works once):`,
      '',
      `  ${link.url}`,
      '',
      'Open it in a browser: it signs that browser in to the console for 8 hours.',
    ].join('\n');
    return { data: link, summary };
  },
};
