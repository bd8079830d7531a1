// Dependency rules of the house (pnpm deps:check). There is no list of known violations: every
// finding fails the check.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'hub-not-subscriber',
      comment: 'The hub never imports the subscriber.',
      severity: 'error',
      from: { path: '^hub/' },
      to: { path: '^subscriber/' },
    },
    {
      name: 'subscriber-not-hub',
      comment: 'The subscriber never imports the hub.',
      severity: 'error',
      from: { path: '^subscriber/' },
      to: { path: '^hub/' },
    },
    {
      name: 'shared-imports-nothing-of-ours',
      comment: 'shared/ is the format library: it imports no other workspace package.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(hub|subscriber|service-kit|test)/' },
    },
    {
      name: 'service-kit-not-daemons',
      comment: 'service-kit/ holds what both daemons share, so it imports neither.',
      severity: 'error',
      from: { path: '^service-kit/' },
      to: { path: '^(hub|subscriber|test)/' },
    },
    {
      name: 'src-not-tests',
      comment: 'Production code does not import test code.',
      severity: 'error',
      from: { path: '^(shared|service-kit|hub|subscriber)/src/' },
      to: { path: '(^test/|/test/)' },
    },
    {
      name: 'no-folder-cycles',
      comment: 'No cycles between concept folders.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^(shared|service-kit|hub|subscriber)/src/' },
      to: { circular: true },
    },
    {
      name: 'concept-folder-through-index',
      comment: 'Another concept folder is imported only through its index.ts.',
      severity: 'error',
      from: { path: '^(shared|service-kit|hub|subscriber)/src/([^/]+)/' },
      to: {
        path: '^$1/src/[^/]+/',
        pathNot: ['^$1/src/$2/', '^$1/src/[^/]+/index[.]ts$'],
      },
    },
    {
      name: 'wiring-through-index',
      comment:
        'The files at the top of src/ (wiring, CLI) use concept folders through their index.ts.',
      severity: 'error',
      from: { path: '^(shared|service-kit|hub|subscriber)/src/[^/]+[.]ts$' },
      to: {
        path: '^$1/src/[^/]+/',
        pathNot: '^$1/src/[^/]+/index[.]ts$',
      },
    },
    {
      name: 'no-module-cycles',
      comment: 'No import cycles between files.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|drizzle)/' },
    tsPreCompilationDeps: true,
    combinedDependencies: true,
    enhancedResolveOptions: {
      conditionNames: ['@rsnotify/source', 'import', 'types', 'default'],
      exportsFields: ['exports'],
      extensions: ['.ts', '.js', '.mjs', '.json'],
    },
  },
};
