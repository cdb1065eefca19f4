import { describe, expect, it } from 'vitest'
import type { MessageItem } from '../items/item'
import { makeMessageItem } from '../testing/fixtures'
import {
  type ComparableMessage,
  IncomingConversation,
  messageFingerprint,
  storedPatternOf,
} from './message-matching'

const callMessage = (input: unknown): ComparableMessage =>
  ({
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input }],
  }) as ComparableMessage

/** A stored (frozen) assistant message making call `c1` with `input`. */
const storedCall = (input: unknown) =>
  Object.freeze({ ...makeMessageItem({ role: 'assistant' }), ...callMessage(input), seq: 1 }) as MessageItem

/** Whether the incoming message matches the stored one, as a call re-sending its history asks. */
function matches(stored: MessageItem, incoming: ComparableMessage): boolean {
  // The list's messages compared unchecked first (a re-send is usually the stored message part for
  // part), then as the adapter maps them: a plain JSON copy here.
  const list = new IncomingConversation(
    [incoming],
    (message) => JSON.parse(JSON.stringify(message)) as ComparableMessage,
    (message) => message,
  )
  return list.matches(0, storedPatternOf(stored))
}

describe('IncomingConversation.matches', () => {
  it('matches a re-sent message part for part, keys in any order and undefined keys left out', () => {
    const stored = storedCall({ a: 1, b: { c: [1, 2] } })
    expect(matches(stored, callMessage({ b: { c: [1, 2] }, a: 1, d: undefined }))).toBe(true)
    expect(matches(stored, callMessage({ a: 1, b: { c: [1, 3] } }))).toBe(false)
    expect(matches(stored, callMessage({ a: 1 }))).toBe(false)
  })

  it('agrees with the fingerprints for a value whose keys are inherited', () => {
    const stored = storedCall({ x: 1 })
    // Only an own key is part of a message: the fingerprint of this input is the empty object's.
    const inherited = callMessage(Object.create({ x: 1 }))
    expect(messageFingerprint(inherited)).not.toBe(messageFingerprint(stored))
    expect(matches(stored, inherited)).toBe(false)
  })
})
