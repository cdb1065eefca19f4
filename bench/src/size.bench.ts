import { BUNDLES, bundleSize, kb } from './bundle-size.ts'
import { type Benchmark, type BenchRow, rowOf, withTarget } from './harness.ts'

/**
 * `pnpm bench size`: each bundle of `bundle-size.ts` (esbuild --bundle --minify --format=esm, then
 * gzip -6), against its target where issue 30 names one, else against its budget.
 */
const benchmark: Benchmark = {
  name: 'size',
  description: 'what an app pays to import Strata: bundled, minified, gzipped (bytes), against targets',
  async run({ progress }) {
    const rows: BenchRow[] = []
    const notes: string[] = []
    for (const bundle of BUNDLES) {
      const { minified, gzipped } = await bundleSize(bundle)
      const against = bundle.target ?? bundle.budget
      const row = rowOf(
        bundle.name,
        { minified, against: bundle.target === undefined ? 'budget' : 'target' },
        { strata: gzipped, baseline: against },
        { unit: 'bytes', baselineName: bundle.target === undefined ? 'its budget' : "issue 30's target" },
      )
      rows.push(
        bundle.target === undefined
          ? row
          : withTarget(row, `≤ ${kb(bundle.target)} gzipped`, gzipped <= bundle.target),
      )
      notes.push(
        `${bundle.name}: ${kb(gzipped)} gzipped (${kb(minified)} minified), budget ${kb(bundle.budget)}` +
          (bundle.target === undefined
            ? ''
            : `, target ${kb(bundle.target)} (${gzipped <= bundle.target ? 'within' : 'over'})`),
      )
      progress(`size: ${bundle.name} measured`)
    }
    return { rows, notes }
  },
}

export default benchmark
