import { describe, expect, it } from 'vitest'
import type { Item, MessageItem, MessagePart } from '../items'
import { makeMessageItem, makePage, withSeqs } from '../testing'
import { countMessageTokens, tokenEstimator } from '../tokens'
import { fitToBudget, NEWEST_SHARE } from './budget-fit'
import type { ContextMessage } from './context-message'
import { cutPart } from './cut-part'
import { OMITTED_NOTE_MAX_LINES, omittedLines, omittedNote, omittedNoteMaxTokens } from './omitted-note'

const counter = tokenEstimator()
const countMessage = (message: { content: readonly MessagePart[] }) => countMessageTokens(message, counter)
const shrink = (item: Item, maxTokens: number) =>
  item.type === 'message'
    ? ({
        ...item,
        content: item.content.map((part) => cutPart(part, maxTokens, item.id, { counter })),
      } as Item)
    : item

/** A request, then `sizes.length` fetch steps with results of those many bytes. */
function thread(sizes: readonly number[]): Item[] {
  const items = [makeMessageItem({ id: 'request', text: 'Fetch the pages.' })]
  sizes.forEach((size, step) => {
    items.push(
      makeMessageItem({
        id: `call-${step}`,
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: `c${step}`, toolName: 'fetch_page', input: { page: step } },
        ],
      }),
      makeMessageItem({
        id: `result-${step}`,
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `c${step}`,
            toolName: 'fetch_page',
            output: makePage(size, `p${step}`),
          },
        ],
      }),
    )
  })
  return withSeqs(items)
}

function fitView(view: Item[], budget: number) {
  const result = fitToBudget({
    system: 'You are an agent.',
    systemTokens: countMessage({ content: [{ type: 'text', text: 'You are an agent.' }] }),
    memoryItems: [],
    view,
    keep: new Set(['request']),
    budget,
    countMessage,
    shrink,
  })
  if (!result.fits) throw new Error('does not fit')
  return result
}

const output = (messages: readonly ContextMessage[], toolCallId: string) =>
  messages
    .flatMap((message) => message.content)
    .find(
      (part): part is MessagePart & { output: string } =>
        part.type === 'tool-result' && part.toolCallId === toolCallId,
    )?.output

describe('fitToBudget', () => {
  it('cuts the oldest first: a context a little over its budget loses part of its oldest result only', async () => {
    const view = thread([3_000, 3_000, 3_000, 3_000])
    const whole = fitView(view, 100_000)
    const budget = whole.tokens - 200
    const fitted = fitView(view, budget)
    expect(fitted.tokens).toBeLessThanOrEqual(budget)
    expect(fitted.tokens).toBeGreaterThanOrEqual(budget - 20)
    expect(fitted.omitted).toBe(0)
    expect(output(fitted.messages, 'c0')).toContain('[truncated:')
    for (const step of [1, 2, 3]) expect(output(fitted.messages, `c${step}`)).not.toContain('[truncated')
  })

  it('a large new result gets all that is left, at least its share; older steps leave oldest first', async () => {
    const view = thread([2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 40_000])
    for (const budget of [2_000, 4_000, 8_000]) {
      const fitted = fitView(view, budget)
      expect(fitted.tokens).toBeLessThanOrEqual(budget)
      expect(fitted.tokens).toBeGreaterThanOrEqual(0.95 * budget)
      const newest = countMessage({ content: [{ type: 'text', text: output(fitted.messages, 'c6')! }] })
      expect(newest).toBeGreaterThanOrEqual(NEWEST_SHARE * budget * 0.9)
      // What stays of the older steps is the newest of them; the request always stays.
      const shown = [0, 1, 2, 3, 4, 5].filter((step) => output(fitted.messages, `c${step}`) !== undefined)
      expect(shown).toEqual([0, 1, 2, 3, 4, 5].slice(6 - shown.length))
      expect(JSON.stringify(fitted.messages)).toContain('Fetch the pages.')
    }
  })

  it('never leaves the request out, and says so when it cannot fit even at its smallest', () => {
    const view = withSeqs([
      makeMessageItem({ id: 'request', content: [{ type: 'file', mediaType: 'image/png', data: 'x.png' }] }),
    ])
    const result = fitToBudget({
      system: undefined,
      systemTokens: 0,
      memoryItems: [],
      view,
      keep: new Set(['request']),
      budget: 500,
      countMessage,
      shrink,
    })
    expect(result).toMatchObject({ fits: false, systemTokens: 0 })
    // The numbers it says so with: the request at its smallest, over the budget.
    expect(result.fits === false && result.requestTokens).toBeGreaterThan(500)
  })
})

describe('fitToBudget on a long view', () => {
  it('counts each step a few times, not the note again for every step that leaves', () => {
    // 3 000 fetch steps, a 4k budget: nearly all of them leave, and the note lists the newest.
    const view = thread(Array.from({ length: 3_000 }, () => 300))
    let counts = 0
    const counting = (message: { content: readonly MessagePart[] }) => {
      counts++
      return countMessage(message)
    }
    const result = fitToBudget({
      system: 'You are an agent.',
      systemTokens: countMessage({ content: [{ type: 'text', text: 'You are an agent.' }] }),
      memoryItems: [],
      view,
      keep: new Set(['request']),
      budget: 4_000,
      countMessage: counting,
      shrink,
    })
    if (!result.fits) throw new Error('does not fit')
    expect(result.tokens).toBeLessThanOrEqual(4_000)
    expect(result.omitted).toBeGreaterThan(5_000)
    // Each step rendered whole and at its floor (a call and its result): a handful of counts a step.
    // Counting the note at each step that leaves made it many times that.
    expect(counts).toBeLessThan(view.length * 4)
  })
})

describe('the omitted note', () => {
  const steps = thread(Array.from({ length: 40 }, () => 500)).slice(1) as MessageItem[]
  const lines = omittedLines(steps, (item) => `id-of-${item.id}`)

  it('lists each call by tool name, a gist of its input and the ids that return its results', () => {
    expect(lines).toHaveLength(40)
    expect(lines[3]).toBe('- fetch_page {"page":3} → id-of-result-3')
    const text = omittedLines(
      [makeMessageItem({ id: 'said', role: 'user', text: `Please ${'very '.repeat(40)}much` })] as Item[],
      (item) => item.id,
    )
    expect(text[0]).toMatch(/^- user: "Please very .*…" → said$/)
    expect(text[0]!.length).toBeLessThan(120)
  })

  it('keeps the newest lines within its bound and counts the older ones', () => {
    const countText = (text: string) => counter.count(text)
    for (const budget of [2_000, 8_000, 32_000, 200_000]) {
      const max = omittedNoteMaxTokens(budget)
      expect(max).toBeGreaterThanOrEqual(160)
      expect(max).toBeLessThanOrEqual(800)
      const { message: note, tokens } = omittedNote(80, lines, max, countText)
      // Its lines counted one by one are not under what the whole text counts.
      expect(tokens).toBeGreaterThanOrEqual(counter.count((note.content[0] as { text: string }).text))
      const text = (note.content[0] as { text: string }).text
      expect(countMessage(note)).toBeLessThanOrEqual(max)
      expect(text).toMatch(/^\[MEMORY:OMITTED\] 80 earlier items left out/)
      const listed = text.split('\n').filter((line) => line.startsWith('- fetch_page'))
      expect(listed.length).toBeGreaterThan(0)
      expect(listed.length).toBeLessThanOrEqual(OMITTED_NOTE_MAX_LINES)
      // The newest are listed; the older ones are counted.
      expect(listed.at(-1)).toBe(lines.at(-1))
      expect(text).toContain(`- … ${40 - listed.length} older lines: memory_query finds them`)
    }
  })
})

it("an omitted [STORED RESULTS] note passes on its lines, each with its result's memory id", () => {
  const note = makeMessageItem({
    id: 'grouped',
    text: '[STORED RESULTS] The 2 oldest tool results …\n- [stored web page] https://a — mem_a\n- [stored json] Call: {"q":1} — mem_b',
  })
  expect(omittedLines([note] as Item[], (item) => item.id)).toEqual([
    '- [stored web page] https://a — mem_a',
    '- [stored json] Call: {"q":1} — mem_b',
  ])
})
