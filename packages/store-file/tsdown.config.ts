import { defineConfig } from 'tsdown'

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  platform: 'node',
  target: 'es2022',
  deps: { neverBundle: [/^@strata-memory\//, /^redis/, /^@redis\//] },
})
