import { Type, type Static } from '@fastify/type-provider-typebox';
import type { Scope } from '../platform/auth/scopes.ts';
import { pageOnly, pageRequest } from '../platform/http/pagination.ts';
import { listAppointments } from '../features/appointments/index.ts';
import { listContacts } from '../features/contacts/index.ts';
import { listDeals } from '../features/deals/index.ts';
import { describeKey, MeSchema } from '../features/me/index.ts';
import { type PortalListQuery, searchPortalProperties } from '../features/properties/index.ts';
import { listPendingTasks } from '../features/tasks/index.ts';
import { defineTool, type McpToolContext, type McpToolDefinition } from '../platform/mcp/mcp-tool.ts';

const me = MeSchema.properties;
const Count = (description: string) => Type.Optional(Type.Integer({ minimum: 0, description }));

const SummarySchema = Type.Object(
  {
    organization: Type.Object(
      {
        id: Type.String(),
        name: Type.String(),
        plan: me.organization.properties.plan,
        livemode: Type.Boolean({ description: 'false for a test key (the test twin of the organization)' }),
        readOnly: Type.Boolean({ description: 'The account is in read-only mode (billing)' }),
      },
      { additionalProperties: false },
    ),
    key: Type.Object(
      {
        id: Type.String(),
        type: me.keyType,
        mode: me.mode,
        scopes: me.scopes,
        accessLevel: me.accessLevel,
        agentId: me.agentId,
      },
      { additionalProperties: false },
    ),
    tools: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          available: Type.Boolean({ description: 'This key holds every scope the tool needs' }),
          scopes: Type.Array(Type.String(), { description: 'Scopes the tool needs' }),
          missingScopes: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    counts: Type.Object(
      {
        publishedProperties: Count('Listings on the portal (portal:read)'),
        contacts: Count('All contacts (contacts:read)'),
        openDeals: Count('Deals in an OPEN stage (deals:read)'),
        pendingTasks: Count('Tasks still PENDING (tasks:read)'),
        overdueTasks: Count('PENDING tasks due before now (tasks:read)'),
        upcomingAppointments: Count('SCHEDULED or CONFIRMED appointments from now on (appointments:read)'),
      },
      {
        additionalProperties: false,
        description:
          "Headline counts; only those the key's scopes allow are present. Exact up to 10,000; a count past that reads 10,000 (at least)",
      },
    ),
  },
  { additionalProperties: false },
);
type Summary = Static<typeof SummarySchema>;

const ONE = pageRequest({ page: 1, pageSize: 1 });
// The portal query type also admits its `hasX` text flags, hence the assertion.
const FIRST_PROPERTY = { page: 1, pageSize: 1 } as PortalListQuery;

/** Headline counts, each read through its feature's list service (one row plus its total). */
async function headlineCounts({ db, caller }: McpToolContext): Promise<Summary['counts']> {
  const holds = (scope: Scope) => caller.scopes.includes(scope);
  const now = new Date();
  const counts: Summary['counts'] = {};
  if (holds('portal:read')) {
    counts.publishedProperties = pageOnly(
      await searchPortalProperties(db, caller, FIRST_PROPERTY),
    ).meta.total;
  }
  if (holds('contacts:read')) counts.contacts = pageOnly(await listContacts(db, caller, ONE)).meta.total;
  if (holds('deals:read')) {
    counts.openDeals = pageOnly(await listDeals(db, caller, { status: 'OPEN' }, ONE)).meta.total;
  }
  if (holds('tasks:read')) {
    counts.pendingTasks = (await listPendingTasks(db, caller, {}, ONE)).meta.total;
    counts.overdueTasks = (await listPendingTasks(db, caller, { dueBefore: now }, ONE)).meta.total;
  }
  if (holds('appointments:read')) {
    let upcoming = 0;
    for (const status of ['SCHEDULED', 'CONFIRMED'] as const) {
      upcoming += (await listAppointments(db, caller, { from: now, status }, ONE)).meta.total;
    }
    counts.upcomingAppointments = upcoming;
  }
  return counts;
}

/** `get_summary`: who the key is, what it may use (over `tools`, itself included), and headline counts. */
export function summaryTool(tools: McpToolDefinition[]): McpToolDefinition {
  const tool: McpToolDefinition = defineTool({
    name: 'get_summary',
    title: 'Summary of this connection',
    description:
      'Start here. Says which agency this key belongs to (name, plan, live or test), the key itself (type, ' +
      'scopes, access level), which tools it may use (and the scopes the others miss), and headline counts ' +
      '(published properties, contacts, open deals, pending and overdue tasks, upcoming appointments) for the ' +
      'scopes it holds. Takes no arguments.',
    scopes: [],
    input: Type.Object({}, { additionalProperties: false }),
    output: SummarySchema,
    run: async (context) => {
      const key = describeKey(context.caller);
      const held = context.caller.scopes as readonly string[];
      return {
        organization: {
          id: key.organization.id,
          name: key.organization.name,
          plan: key.organization.plan,
          livemode: key.organization.livemode,
          readOnly: key.organization.readOnly,
        },
        key: {
          id: key.apiKeyId,
          type: key.keyType,
          mode: key.mode,
          scopes: [...key.scopes],
          accessLevel: key.accessLevel,
          agentId: key.agentId,
        },
        tools: [...tools, tool].map((each) => {
          const missingScopes = each.scopes.filter((scope) => !held.includes(scope));
          return {
            name: each.name,
            available: missingScopes.length === 0,
            scopes: [...each.scopes],
            missingScopes,
          };
        }),
        counts: await headlineCounts(context),
      };
    },
    summarize: (result) => {
      const usable = result.tools.filter((each) => each.available).length;
      return (
        `${result.organization.name} (${result.organization.plan}, ${result.organization.livemode ? 'live' : 'test'}): ` +
        `${result.key.type} key with ${result.key.scopes.length} scopes; ${usable} of ${result.tools.length} tools available.`
      );
    },
  });
  return tool;
}
