import { describe, expect, it } from 'vitest'
import { ByteBlocks } from './byte-blocks'

describe('ByteBlocks', () => {
  it('holds the UTF-8 bytes of the strings added, across blocks and for strings larger than a block', () => {
    const parts = [
      'plain ASCII\n',
      'Grüße — 🌳 «\u2028»\n',
      `${'—'.repeat(400_000)}\n`,
      ...Array.from(
        { length: 3_000 },
        (_value, index) => `{"seq":${index},"text":"${'x'.repeat(index % 700)}🍎"}\n`,
      ),
      '🌳'.repeat(600_000),
      'the end',
    ]
    const blocks = new ByteBlocks()
    for (const part of parts) blocks.add(part)
    const finished = blocks.finish()
    expect(finished.length).toBeGreaterThan(2)
    expect(Buffer.concat(finished).equals(Buffer.from(parts.join('')))).toBe(true)
  })
})
