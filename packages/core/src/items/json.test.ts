import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMemory } from '../memory'
import { type JsonValue, jsonCopy } from './json'

describe('jsonCopy', () => {
  it('equals a JSON round trip, keys in order, sharing no object with the original', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const expected = JSON.parse(JSON.stringify(value)) as unknown
        const copy = jsonCopy(value as JsonValue)
        expect(copy).toStrictEqual(expected)
        expect(JSON.stringify(copy)).toBe(JSON.stringify(expected))
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

  it('drops undefined properties, writes -0 as 0 and keeps an own __proto__ key as data', () => {
    const value = JSON.parse('{"a":1,"__proto__":{"polluted":true},"c":[-0]}') as Record<string, unknown>
    value.b = undefined
    const copy = jsonCopy(value)
    expect(Object.keys(copy)).toEqual(['a', '__proto__', 'c'])
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.is((copy.c as number[])[0], 0)).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('keeps an own __proto__ key a key, as JSON.parse makes it', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as JsonValue
    const copy = jsonCopy(value) as Record<string, unknown>
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.keys(copy)).toEqual(['__proto__', 'a'])
    expect(copy).toStrictEqual(JSON.parse(JSON.stringify(value)))
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('shares nothing mutable with the original', () => {
    const value = { list: [{ deep: 'x' }] }
    const copy = jsonCopy(value)
    copy.list[0]!.deep = 'changed'
    expect(value.list[0]!.deep).toBe('x')
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
