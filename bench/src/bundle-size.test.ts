import { describe, expect, it } from 'vitest'
import { BUNDLES, bundleSize, kb } from './bundle-size.ts'

// Runs against the packages' built dist (npm test builds them first), as an app's bundler would.
describe('what an app pays to import Strata, bundled, minified and gzipped', () => {
  for (const bundle of BUNDLES) {
    it(`${bundle.name} stays within ${kb(bundle.budget)}`, { timeout: 60_000 }, async () => {
      const { gzipped } = await bundleSize(bundle)
      expect(gzipped, `${bundle.name}: ${kb(gzipped)} gzipped`).toBeLessThanOrEqual(bundle.budget)
      // Something was bundled: an entry that resolved to nothing would pass any budget.
      expect(gzipped).toBeGreaterThan(200)
    })
  }
})
