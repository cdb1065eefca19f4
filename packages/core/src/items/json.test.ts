import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMemory } from '../memory'
import { copyJson, type JsonValue } from './json'

describe('copyJson', () => {
  it('gives what structuredClone gives for any JSON value, sharing no object with it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = copyJson(value as JsonValue)
        expect(copy).toStrictEqual(structuredClone(value))
        const objects = (node: unknown, into: Set<unknown>) => {
          if (node === null || typeof node !== 'object') return into
          into.add(node)
          for (const child of Object.values(node)) objects(child, into)
          return into
        }
        const original = objects(value, new Set())
        for (const node of objects(copy, new Set())) expect(original.has(node)).toBe(false)
      }),
    )
  })

  it('keeps an own __proto__ key a key, as JSON.parse makes it', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as JsonValue
    const copy = copyJson(value) as Record<string, unknown>
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.keys(copy)).toEqual(['__proto__', 'a'])
    expect(copy).toStrictEqual(structuredClone(value))
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('what a thread hands out is the caller’s own', () => {
  it('changing a context or the items returned changes nothing stored', async () => {
    const thread = await createMemory().thread('copies')
    await thread.append([
      { role: 'user', content: 'Find cats' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'cats' } }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { n: 3 } }],
      },
    ])
    const before = await thread.context({ system: 'Be brief.' })
    const items = await thread.items()

    const changed = await thread.context({ system: 'Be brief.' })
    for (const message of changed.messages) {
      message.content.length = 0
      message.role = 'user'
    }
    for (const item of items) {
      if (item.type === 'message') (item.content[0] as { type: string }).type = 'changed'
      item.seq = -1
    }

    expect(await thread.context({ system: 'Be brief.' })).toEqual(before)
    expect((await thread.items()).map((item) => item.seq)).toEqual([1, 2, 3])
  })
})
