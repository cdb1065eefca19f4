import { defineConfig } from 'tsdown'

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  platform: 'node',
  // .js / .cjs and .d.ts / .d.cts, as package.json's exports map names them.
  fixedExtension: false,
  target: 'es2022',
  deps: { neverBundle: [/^@strata-memory\//, /^redis/, /^@redis\//] },
})
