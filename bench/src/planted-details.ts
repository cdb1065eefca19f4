import type { MemoryTools } from '@strata-memory/core'
import type { PlantedDetail } from './agent-loop-scenario.ts'
import { type AnyMessage, containsVerbatim } from './agent-loop-tokens.ts'

/** How a planted detail can be reached at the end of a run. */
export interface DetailReach {
  detail: PlantedDetail
  how: 'verbatim' | 'memory_query' | 'lost'
  /** For a lost detail: the memory_query hits, none of which showed the value. */
  hits?: number
}

/**
 * Each planted detail: verbatim in the last context, else in the answer of one `memory_query` whose
 * text is a phrase the model would search for (not the value itself), else lost.
 */
export async function reachDetails(
  memoryQuery: MemoryTools['memory_query'],
  last: readonly AnyMessage[],
  planted: readonly PlantedDetail[],
): Promise<DetailReach[]> {
  const reached: DetailReach[] = []
  for (const detail of planted) {
    if (containsVerbatim(last, detail.value)) {
      reached.push({ detail, how: 'verbatim' })
      continue
    }
    const found = await memoryQuery.execute({ text: detail.query })
    if (JSON.stringify(found).includes(detail.value)) reached.push({ detail, how: 'memory_query' })
    else reached.push({ detail, how: 'lost', hits: 'results' in found ? found.results.length : 0 })
  }
  return reached
}
