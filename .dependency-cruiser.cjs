/**
 * Import rules of src/ (DESIGN.md "Layout"), run by `npm run lint`:
 * - no import cycles;
 * - imports point down: cli -> shared (HTTP only); features -> platform -> db/config -> shared;
 * - a feature reaches another feature only through that feature's index.ts.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make load order matter and hide which module owns what.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'feature-internals',
      severity: 'error',
      comment: "A feature reaches another feature only through that feature's index.ts.",
      from: { path: '^src/features/([^/]+)/' },
      to: {
        path: '^src/features/([^/]+)/',
        pathNot: ['^src/features/$1/', '^src/features/[^/]+/index[.]ts$'],
      },
    },
    {
      name: 'outside-reaches-feature-internals',
      severity: 'error',
      comment: 'Outside src/features, a feature is reached only through its index.ts.',
      from: { path: '^src/', pathNot: '^src/features/' },
      to: { path: '^src/features/[^/]+/', pathNot: '^src/features/[^/]+/index[.]ts$' },
    },
    {
      name: 'platform-below-features',
      severity: 'error',
      comment: 'platform/ is machinery: it never imports a feature, the MCP server, the CLI or the app.',
      from: { path: '^src/platform/' },
      to: { path: '^src/(features|mcp|cli)/|^src/(app|server|worker|features)[.]ts$' },
    },
    {
      name: 'db-below-platform',
      severity: 'error',
      comment: 'Storage is the bottom layer: it imports neither platform nor features.',
      from: { path: '^src/db/' },
      to: { path: '^src/(platform|features|mcp|cli)/|^src/(app|server|worker|features)[.]ts$' },
    },
    {
      name: 'cli-is-an-http-client',
      severity: 'error',
      comment:
        'The CLI talks to the admin API; it imports no feature, platform, db or app module (shared values: src/shared/).',
      from: { path: '^src/cli/' },
      to: { path: '^src/(features|platform|db|mcp)/|^src/(app|server|worker|features|config)[.]ts$' },
    },
    {
      name: 'shared-imports-nothing',
      severity: 'error',
      comment:
        'src/shared/ holds values the CLI and the service both use: it imports nothing of the service.',
      from: { path: '^src/shared/' },
      to: { path: '^src/(?!shared/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
