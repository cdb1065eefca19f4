import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url))

// Tests run against the packages' sources, so `pnpm test` needs no build step first.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@strata-memory\/core$/, replacement: source('./packages/core/src/index.ts') },
      {
        find: /^@strata-memory\/core\/testing$/,
        replacement: source('./packages/core/src/testing/index.ts'),
      },
      {
        find: /^@strata-memory\/core\/store-kit$/,
        replacement: source('./packages/core/src/store-kit/index.ts'),
      },
      {
        find: /^@strata-memory\/core\/adapter-kit$/,
        replacement: source('./packages/core/src/adapter-kit/index.ts'),
      },
      {
        find: /^@strata-memory\/core\/tokenizer$/,
        replacement: source('./packages/core/src/tokenizer/index.ts'),
      },
    ],
  },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'apps/*/src/**/*.test.ts',
      'examples/*/src/**/*.test.ts',
      'bench/src/**/*.test.ts',
      'tests/*/src/**/*.test.ts',
    ],
    setupFiles: ['./vitest.setup.ts'],
    testTimeout: 20_000,
  },
})
