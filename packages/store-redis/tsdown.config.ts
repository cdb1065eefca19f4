import { defineConfig } from 'tsdown'

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  platform: 'node',
  // .js and .d.ts for ESM, as the package.json exports map says (platform 'node' would default to .mjs).
  fixedExtension: false,
  target: 'es2022',
  deps: { neverBundle: [/^@strata-memory\//, /^redis/, /^@redis\//] },
})
