import * as esbuild from 'esbuild';
const bundled = new Set((process.env.BUNDLE || '').split(',').filter(Boolean));
await esbuild.build({
  entryPoints: ['src/cli/main.ts'], bundle: true, platform: 'node', format: 'esm', target: 'node22', splitting: true,
  outdir: process.env.OUT, chunkNames: '[name]-[hash]', minifyWhitespace: true, charset: 'ascii', sourcemap: 'linked', legalComments: 'none', logLevel: 'warning',
  plugins: [{ name: 'externals', setup(b) { b.onResolve({ filter: /^[^./]/ }, (args) => {
    const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
    if (bundled.has(name)) return undefined; return { path: args.path, external: true }; }); } }],
});
