import { defineConfig } from 'tsdown'

// ESM only: `ai` 7 is ESM-only, so a CommonJS build could not load its peer.
export default defineConfig({
  entry: { index: 'src/index.ts', client: 'src/client/index.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  platform: 'neutral',
  fixedExtension: false,
  target: 'es2022',
  deps: { neverBundle: [/^@strata-memory\//, /^ai(\/|$)/, /^@ai-sdk\//, /^zod(\/|$)/] },
})
