import { describe, expect, it } from 'vitest'
import type { Item } from '../items'
import { PatternReading } from './pattern-reading'
import { patternSummarizer } from './pattern-summarizer'

/**
 * A long thread's items: a user request with an identifier (now and then a preference), every third
 * turn a tool call with a JSON result of some rows, and an answer that tells a value.
 */
function longThread(count: number): Item[] {
  const items: Item[] = []
  const push = (turn: number, item: Record<string, unknown>) => {
    const seq = items.length + 1
    items.push({ seq, id: `i${seq}`, ts: seq, level: 'global', turnId: `turn_${turn}`, ...item } as Item)
  }
  for (let turn = 1; items.length < count; turn++) {
    const preference = turn % 7 === 0 ? ` I prefer report ${turn % 50} in the morning.` : ''
    push(turn, {
      type: 'message',
      role: 'user',
      content: [{ type: 'text', text: `Can you check order PO-${turn} from Ana Lima?${preference}` }],
    })
    if (turn % 3 === 0) {
      const call = {
        type: 'tool-call',
        toolCallId: `c${turn}`,
        toolName: 'lookup',
        input: { id: `PO-${turn}` },
      }
      push(turn, { type: 'message', role: 'assistant', content: [call] })
      const rows = Array.from({ length: 20 }, (_, row) => ({ id: `r${turn}_${row}`, total: `${row}.00 EUR` }))
      const result = { type: 'tool-result', toolCallId: `c${turn}`, toolName: 'lookup', output: { rows } }
      push(turn, { type: 'message', role: 'tool', content: [result] })
    }
    push(turn, {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: `Invoice PO-${turn} totals ${turn}.50 EUR.` }],
    })
  }
  return items.slice(0, count)
}

/** The least CPU time (this process's, in ms) of `runs` summaries of `items`: robust to a loaded machine. */
async function leastCpuMs(items: readonly Item[], runs: number): Promise<number> {
  const summarizer = patternSummarizer()
  let least = Number.POSITIVE_INFINITY
  for (let run = 0; run < runs; run++) {
    const before = process.cpuUsage()
    await summarizer.summarize(items, { tier: 'episodic' })
    const used = process.cpuUsage(before)
    least = Math.min(least, (used.user + used.system) / 1_000)
  }
  return least
}

describe('the pattern summarizer at scale', () => {
  it('keeps a bounded reading however many items: lines, tool lines and fact candidates', () => {
    const reading = new PatternReading({ actionOf: (name) => name, keepLines: 20, maxFacts: 10 })
    for (const item of longThread(8_000)) reading.read(item)
    reading.finish()
    for (const section of [reading.user, reading.assistant, reading.tools]) {
      expect(section.lines().length).toBeLessThanOrEqual(2 * 20 + 1)
    }
    expect(reading.calls.lines().length).toBeLessThanOrEqual(2 * 20)
    expect(reading.identifiers.others.newestFirst().length).toBeLessThanOrEqual(1_024)
    // The totals still count every line seen (each user line is distinct here).
    expect(reading.totals.user).toBeGreaterThan(2_000)
    expect(reading.facts.choose().length).toBe(10)
  }, 30_000)

  it('grows at most linearly: the fitted exponent of its CPU time from 2k to 16k items is under 1.2', async () => {
    const small = longThread(2_000)
    const large = longThread(16_000)
    // Warm the JIT up first, then the least of several runs of each size.
    await leastCpuMs(small, 2)
    const smallMs = await leastCpuMs(small, 5)
    const largeMs = await leastCpuMs(large, 3)
    const exponent = Math.log(largeMs / smallMs) / Math.log(large.length / small.length)
    expect(exponent).toBeLessThan(1.2)
  }, 60_000)
})
