/**
 * The dependency rules of the code (docs/development.md, "Dependency rules"), checked by
 * dependency-cruiser in `npm test` after the type checks: no cycle between files, and no layer
 * imported upwards (routes -> domain -> storage). Run it alone with
 * `bash scripts/with-node.sh depcruise src web/src packages/client/src`. There is no list of known
 * breaches: a breach fails the suite.
 */

/** The modules that know which engine runs: only storage (and the wiring that opens it) may use them. */
const ENGINE_MODULES = [
  '^src/storage/dialect\\.ts$',
  '^src/storage/engine/',
  '^src/storage/open\\.ts$',
  '^src/storage/postgres-pool\\.ts$',
  '^src/storage/commit-listener\\.ts$',
  '^src/storage/sqlite-',
];

/** Database and cloud drivers, and the web framework (as resolved under node_modules): the domain names none of them. */
const DRIVERS = ['(^|/)node_modules/(better-sqlite3|pg|pg-[^/]+|postgres|kysely-postgres-js|ioredis|fastify|fastify-[^/]+|@fastify/[^/]+|@aws-sdk/[^/]+)/'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle between files makes the order of loading matter and the layers meaningless: break it by moving the shared piece down.',
      from: { path: '^(src|packages|web/src)/' },
      to: { circular: true },
    },
    {
      name: 'storage-not-upwards',
      severity: 'error',
      comment: 'Storage is the bottom layer: it never imports the domain, the routes, the HTTP layer, the plugins or the app.',
      from: { path: '^src/storage/' },
      to: { path: '^src/(domain|routes|http|plugins|events|ratelimit|schemas|cli)/|^src/(app|server)\\.ts$' },
    },
    {
      name: 'domain-not-upwards',
      severity: 'error',
      comment: 'Services know nothing of HTTP: the domain never imports the routes, the HTTP layer, the plugins or the app.',
      from: { path: '^src/domain/' },
      to: { path: '^src/(routes|http|plugins|cli)/|^src/(app|server)\\.ts$' },
    },
    {
      name: 'domain-no-drivers',
      severity: 'error',
      comment: 'The domain never names Fastify, a database or cloud driver: repositories and the storage layer do.',
      from: { path: '^src/domain/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], path: DRIVERS },
    },
    {
      name: 'domain-no-dialect',
      severity: 'error',
      comment: 'The domain never sees which database it runs on: the dialect modules are for the storage layer.',
      from: { path: '^src/domain/' },
      to: { path: ENGINE_MODULES },
    },
    {
      name: 'routes-through-domain',
      severity: 'error',
      comment: 'Routes stay one line into a service: they never reach the repositories or the dialect.',
      from: { path: '^src/routes/' },
      to: { path: '^src/storage/' },
    },
    {
      name: 'limiters-not-upwards',
      severity: 'error',
      comment: 'The rate limiters and the event bell sit below HTTP (the bell carries what the domain committed; the limiters know no service).',
      from: { path: '^src/(ratelimit|events)/' },
      to: { path: '^src/(routes|http|plugins|cli)/|^src/(app|server)\\.ts$|^src/domain/(?!events/record\\.ts$)' },
    },
    {
      name: 'web-not-the-server',
      severity: 'error',
      comment: 'The web app talks to the server over HTTP, through @taskboard/client, never through its source.',
      from: { path: '^(web|packages)/' },
      to: { path: '^src/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to no file (but the virtual modules a Vite plugin makes at build time, such as virtual:pwa-register).',
      from: {},
      to: { couldNotResolve: true, pathNot: '^virtual:' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // swc parses TypeScript and reports type-only imports as dependencies (a cycle of types is a
    // cycle too); dependency-cruiser cannot drive TypeScript 7's compiler, which `tsc` here is.
    parser: 'swc',
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['taskboard-source', 'import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
