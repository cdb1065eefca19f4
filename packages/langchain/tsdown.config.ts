import { defineConfig } from 'tsdown'

// ESM and CJS: langchain, @langchain/core and @langchain/langgraph ship both.
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  platform: 'neutral',
  target: 'es2022',
  deps: {
    neverBundle: [/^@strata-memory\//, /^langchain(\/|$)/, /^@langchain\//, /^zod(\/|$)/],
  },
})
