import { readFileSync } from 'node:fs'
import { defineConfig } from 'tsdown'

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string
}

// ESM only: a command-line tool and its config helper; commander 15 is ESM-only.
export default defineConfig({
  entry: { index: 'src/index.ts', bin: 'src/bin.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  platform: 'node',
  // The tests reach store-redis's test harness; the declarations are built from the sources alone.
  tsconfig: 'tsconfig.build.json',
  fixedExtension: false,
  target: 'es2022',
  define: { __STRATA_CLI_VERSION__: JSON.stringify(version) },
  deps: {
    neverBundle: [/^@strata-memory\//, /^redis/, /^@redis\//, /^commander/, /^picocolors/, /^cli-progress/],
  },
})
