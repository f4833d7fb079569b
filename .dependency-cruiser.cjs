// The server's map, enforced (server/ARCHITECTURE.md "The rule"): a small core that imports no
// feature, feature folders that use each other only through their index.ts and never in a circle,
// and only the app (the Express app, the tRPC app router, the scripts) importing every feature's
// routes and routers.
// `npm run lint:deps` checks it; tests/unit/dependency-rules.test.ts proves it finds a planted
// violation of each rule.
const FEATURES =
  '(access|audit|auth|backup|business-hours|conversations|crm|events|export|imports|inbox|live|maintenance|media|messaging|notifications|opt-outs|ownership|provider|records|scheduling|seed|settings|signing|templates|webhook|wording)';
const APP = '^server/(app/|scripts/|main\\.ts$)';

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
      name: 'no-folder-cycle',
      severity: 'error',
      comment:
        'Counting each folder as one (server/ARCHITECTURE.md "The rule"): no folder of the server, and no feature of the SPA, imports one that imports it back, types included.',
      scope: 'folder',
      from: { path: '^(server|client/src/features)/[^/]+$' },
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
      name: 'trpc-base-imports-only-core',
      severity: 'error',
      comment:
        'Every router stands on server/trpc (init, the context procedures see, shared inputs): it imports the core and shared/, never a feature or the app.',
      from: { path: '^server/trpc/' },
      to: { path: '^(server|client)/', pathNot: '^server/(core|trpc)/' },
    },
    {
      name: 'feature-through-its-index',
      severity: 'error',
      comment: "A feature uses another only through that one's index.ts: its other files are its own business.",
      from: { path: `^server/${FEATURES}/` },
      to: { path: `^server/${FEATURES}/`, pathNot: ['^server/$1/', `^server/${FEATURES}/index\\.ts$`] },
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
    // The SPA's features (client/src/features/*) keep the same map as the server's: each one's
    // index.ts is its door, for other features and for the app's own files (app.tsx, pages/…) alike.
    {
      name: 'client-feature-through-its-index',
      severity: 'error',
      comment: "A client feature is used only through its index.ts: from another feature, or from the app's own files.",
      from: { path: '^client/src/(features/[^/]+/|.+$)' },
      to: { path: '^client/src/features/[^/]+/', pathNot: ['^client/src/$1', '^client/src/features/[^/]+/index\\.ts$'] },
    },
    {
      name: 'client-reads-only-router-types',
      severity: 'error',
      comment: 'The SPA knows the server only as the tRPC router type.',
      from: { path: '^client/' },
      to: { path: '^server/', pathNot: '^server/app/app-router\\.ts$' },
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
