import { defineConfig } from 'tsdown'

// ESM and CommonJS: @mastra/core ships both.
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  platform: 'neutral',
  target: 'es2022',
  deps: { neverBundle: [/^@strata-memory\//, /^@mastra\//, /^zod(\/|$)/] },
})
