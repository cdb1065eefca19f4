import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { deepFreeze, FrozenItems } from './frozen-items'

interface Entry {
  id: number
  nested: { list: { value: number }[] }
}

const entry = (id: number): Entry => ({ id, nested: { list: [{ value: id }] } })
const deeplyFrozen = (item: Entry) =>
  Object.isFrozen(item) &&
  Object.isFrozen(item.nested) &&
  Object.isFrozen(item.nested.list) &&
  Object.isFrozen(item.nested.list[0])

describe('frozen items', () => {
  it('freezes deeply every item from where a read asks, whatever was pushed, frozen or removed before (all, or a window)', () => {
    const operation = fc.oneof(
      fc.record({ kind: fc.constant('push' as const), frozen: fc.boolean() }),
      fc.record({ kind: fc.constant('freeze' as const), from: fc.nat(30) }),
      fc.record({
        kind: fc.constant('remove' as const),
        every: fc.integer({ min: 2, max: 5 }),
        // Only the items at indexes `from` to `to` are asked (undefined: all of them).
        window: fc.option(fc.tuple(fc.nat(30), fc.nat(40)), { nil: undefined }),
      }),
      fc.record({
        kind: fc.constant('view' as const),
        from: fc.nat(30),
        every: fc.integer({ min: 1, max: 7 }),
      }),
    )
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 40 }), (operations) => {
        const items = new FrozenItems<Entry>()
        // The model: the items a read asked to freeze (or pushed frozen), which must stay frozen.
        const mustBeFrozen = new Set<Entry>()
        // Items a view's freeze may have frozen with it (those after the view's first item).
        const mayBeFrozen = new Set<Entry>()
        let next = 0
        for (const step of operations) {
          if (step.kind === 'push') {
            const item = entry(next++)
            if (step.frozen) {
              deepFreeze(item)
              mustBeFrozen.add(item)
            }
            items.push(item, step.frozen)
          } else if (step.kind === 'freeze') {
            items.freezeFrom(step.from)
            for (const item of items.all.slice(step.from)) mustBeFrozen.add(item)
          } else if (step.kind === 'view') {
            const range = items.all.slice(step.from)
            const view = range.filter((_, index) => index % step.every === 0)
            items.freezeView(view, step.from)
            for (const item of view) mustBeFrozen.add(item)
            for (const item of range) mayBeFrozen.add(item)
          } else {
            const before = items.all.slice()
            const [from, to] = step.window ?? [0, before.length]
            const dropped = (item: Entry, index: number) =>
              index >= from && index < to && item.id % step.every === 0
            const removed = items.removeWhere((item) => item.id % step.every === 0, from, to)
            expect(removed).toEqual(before.filter(dropped))
            expect(items.all).toEqual(before.filter((item, index) => !dropped(item, index)))
          }
          expect(items.all.map((item) => item.id)).toEqual(
            [...items.all.map((item) => item.id)].sort((a, b) => a - b),
          )
          for (const item of items.all) {
            if (mustBeFrozen.has(item)) expect(deeplyFrozen(item)).toBe(true)
            else if (!mayBeFrozen.has(item)) expect(Object.isFrozen(item)).toBe(false)
          }
        }
        items.freezeFrom(0)
        expect(items.all.every(deeplyFrozen)).toBe(true)
      }),
    )
  })

  it("freezes a sparse view's own items only, and a dense view's whole range", () => {
    const items = new FrozenItems<Entry>()
    for (let id = 0; id < 10; id++) items.push(entry(id), false)
    items.freezeView([items.all[2]!, items.all[6]!], 2)
    expect(items.all.map(deeplyFrozen)).toEqual([0, 0, 1, 0, 0, 0, 1, 0, 0, 0].map(Boolean))
    items.freezeView([items.all[7]!, items.all[8]!], 7)
    expect(items.all.map(deeplyFrozen)).toEqual([0, 0, 1, 0, 0, 0, 1, 1, 1, 1].map(Boolean))
  })

  it('leaves items before the asked index unfrozen', () => {
    const items = new FrozenItems<Entry>()
    for (let id = 0; id < 5; id++) items.push(entry(id), false)
    items.freezeFrom(3)
    expect(items.all.map(deeplyFrozen)).toEqual([false, false, false, true, true])
    items.push(entry(5), false)
    items.freezeFrom(4)
    expect(items.all.map(deeplyFrozen)).toEqual([false, false, false, true, true, true])
    items.freezeFrom(0)
    expect(items.all.map(deeplyFrozen)).toEqual([true, true, true, true, true, true])
  })
})
