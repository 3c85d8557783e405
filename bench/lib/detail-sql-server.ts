/**
 * Child-process entry: the hand-written baseline of the `property-detail` scenario.
 * GET /v1/properties/:id on `pg` alone (bare-pg-route.ts): one named prepared statement reading the
 * published listing, its agent's card and the organization's settings by organization and id, mapped
 * by portal-sql.ts (`lang` as the portal takes it). An id the organization does not publish is refused
 * (the scenario asks only for published ones).
 */
import { listenBarePgRoute, queryOf, Unsupported, type BarePgRouteOptions } from './bare-pg-route.ts';
import {
  askedLanguage,
  organizationSettings,
  PORTAL_COLUMNS,
  PORTAL_FROM,
  PORTAL_VISIBLE,
  portalJson,
  type PortalRow,
} from './portal-sql.ts';
import { serveChild } from './protocol.ts';

const DETAIL = {
  name: 'bench_portal_detail',
  text: `SELECT ${PORTAL_COLUMNS} FROM ${PORTAL_FROM} CROSS JOIN ${organizationSettings('$1', '$3')}
    WHERE p.organization_id = $1 AND p.id = $2 AND ${PORTAL_VISIBLE}`,
};

serveChild<BarePgRouteOptions>((options) =>
  listenBarePgRoute(options, {
    method: 'GET',
    url: '/v1/properties/:id',
    status: 200,
    async handle(pool, organizationId, request) {
      const { id } = request.params as { id: string };
      const { lang } = queryOf(request, ['lang']);
      const { rows } = await pool.query<PortalRow>({
        ...DETAIL,
        values: [organizationId, id, askedLanguage(lang, request.headers['accept-language'])],
      });
      const row = rows[0];
      if (!row) throw new Unsupported(`no published listing ${id} in this organization`);
      return { data: portalJson(row) };
    },
  }),
);
