import { defineConfig } from 'vitest/config'

// The browser test: builds the app when it has no build, starts `next start`, drives Debian's Chromium.
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.ts'],
    testTimeout: 240_000,
    hookTimeout: 600_000,
  },
})
