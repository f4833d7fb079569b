// The server's map, enforced (server/ARCHITECTURE.md "The rule"): a small core that imports no
// feature, feature folders that use each other only through their index.ts, and only the app (the
// Express app, the tRPC app router, the scripts) importing every feature's routes and routers.
// `npm run lint:deps` checks it; tests/unit/dependency-rules.test.ts proves it finds a planted
// violation of each rule.
const FEATURES =
  '(access|audit|auth|backup|business-hours|crm|events|export|inbox|live|maintenance|media|messaging|notifications|ownership|provider|records|scheduling|seed|settings|templates|webhook)';
const APP = '^server/(app/|scripts/|main\\.ts$|trpc/app-router\\.ts$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes load order matter and the map a tangle: no module reaches itself, types included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-no-feature',
      severity: 'error',
      comment: 'server/core is what every feature stands on: it imports only itself and shared/.',
      from: { path: '^server/core/' },
      to: { path: '^(server|client)/', pathNot: '^server/core/' },
    },
    {
      name: 'shared-imports-only-shared',
      severity: 'error',
      comment: 'shared/ is read by the SPA and the server alike: it imports nothing of either.',
      from: { path: '^shared/' },
      to: { path: '^(server|client)/' },
    },
    {
      name: 'http-is-middleware',
      severity: 'error',
      comment: 'server/http holds Express middleware only: it imports the core, never a feature.',
      from: { path: '^server/http/' },
      to: { path: '^server/', pathNot: '^server/(core|http)/' },
    },
    {
      name: 'trpc-init-imports-no-feature',
      severity: 'error',
      comment: 'Every router imports server/trpc/init.ts: it may not import a feature back.',
      from: { path: '^server/trpc/(init|record-id)\\.ts$' },
      to: { path: '^server/', pathNot: '^server/(core|trpc)/' },
    },
    {
      name: 'feature-through-its-index',
      severity: 'error',
      comment: "A feature uses another only through that one's index.ts: its other files are its own business.",
      from: { path: `^server/${FEATURES}/` },
      to: { path: `^server/${FEATURES}/`, pathNot: ['^server/$1/', `^server/${FEATURES}/index\\.ts$`] },
    },
    {
      name: 'context-through-feature-indexes',
      severity: 'error',
      comment: 'The tRPC context names what procedures are given; it reaches features through their index.ts too.',
      from: { path: '^server/trpc/context\\.ts$' },
      to: { path: `^server/${FEATURES}/`, pathNot: `^server/${FEATURES}/index\\.ts$` },
    },
    {
      name: 'only-the-app-imports-routes',
      severity: 'error',
      comment: 'Routers and Express routes are mounted by the app alone.',
      from: { pathNot: `${APP}|^tests/|^client/` },
      to: { path: '^server/[^/]+/(.+-router|.+-route)\\.ts$', pathNot: '^server/http/' },
    },
    {
      name: 'product-imports-no-dev-tool',
      severity: 'error',
      comment: 'The provider simulator is a development tool: the product never loads it.',
      from: { path: '^(server|client|shared)/', pathNot: '^server/dev/' },
      to: { path: '^server/dev/' },
    },
    {
      name: 'dev-tool-stands-alone',
      severity: 'error',
      comment: 'The simulator plays the provider: it knows the core and shared/, not the product features.',
      from: { path: '^server/dev/' },
      to: { path: '^(server|client)/', pathNot: '^server/(core|dev)/' },
    },
    {
      name: 'migrations-are-frozen',
      severity: 'error',
      comment: 'An applied migration must never change: it imports only the migration type, never live code.',
      from: { path: '^server/core/db/migrations/' },
      to: { path: '^(server|client|shared)/', pathNot: '^server/core/db/migration-type\\.ts$' },
    },
    {
      name: 'client-ui-and-lib-import-no-feature',
      severity: 'error',
      comment: "The SPA's ui/ and lib/ are what its features stand on: they import no feature.",
      from: { path: '^client/src/(ui|lib)/' },
      to: { path: '^client/src/(features/|layout\\.tsx$|app\\.tsx$)' },
    },
    {
      name: 'client-reads-only-router-types',
      severity: 'error',
      comment: 'The SPA knows the server only as the tRPC router type.',
      from: { path: '^client/' },
      to: { path: '^server/', pathNot: '^server/trpc/app-router\\.ts$' },
    },
    {
      name: 'client-router-import-is-type-only',
      severity: 'error',
      comment: 'Bundling the router would bundle the server.',
      from: { path: '^client/' },
      to: { path: '^server/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
