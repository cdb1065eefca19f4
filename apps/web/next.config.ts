import { fileURLToPath } from 'node:url'
import type { NextConfig } from 'next'

/** The monorepo's root: Next traces and bundles the workspace packages from there. */
const root = fileURLToPath(new URL('../..', import.meta.url))

const config: NextConfig = {
  outputFileTracingRoot: root,
  turbopack: { root },
  // Node-only stores (files, a Redis client) stay out of the bundle, loaded from node_modules at run time.
  serverExternalPackages: ['@strata-memory/store-file', '@strata-memory/store-redis', 'redis'],
  typescript: { ignoreBuildErrors: false },
}

export default config
