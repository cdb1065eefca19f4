import { defineConfig } from 'tsdown'

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
    'store-kit': 'src/store-kit/index.ts',
    'adapter-kit': 'src/adapter-kit/index.ts',
    tokenizer: 'src/tokenizer/index.ts',
    tools: 'src/tools/index.ts',
    'prompt-summarizer': 'src/prompt-summarizer/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  platform: 'neutral',
  target: 'es2022',
  deps: { neverBundle: ['vitest', /^gpt-tokenizer/] },
})
