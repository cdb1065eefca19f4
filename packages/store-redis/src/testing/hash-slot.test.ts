import { describe, expect, it } from 'vitest'
import { hashSlot } from './hash-slot'

describe('hashSlot', () => {
  it('matches the slots Redis documents', () => {
    expect(hashSlot('123456789')).toBe(0x31c3 % 16384)
    expect(hashSlot('foo')).toBe(12182)
    expect(hashSlot('{user1000}.following')).toBe(hashSlot('user1000'))
    // An empty tag does not count: the whole key is hashed.
    expect(hashSlot('foo{}{bar}')).not.toBe(hashSlot('bar'))
    expect(hashSlot('foo{{bar}}zap')).toBe(hashSlot('{bar'))
  })
})
