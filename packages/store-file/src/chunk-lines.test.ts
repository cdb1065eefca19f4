import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ChunkLines } from './chunk-lines'

/** Each line's text as the per-line decoding gives it, up to the last newline. */
function perLine(chunk: Buffer): string[] {
  const lines: string[] = []
  let position = 0
  for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, position)) {
    lines.push(chunk.toString('utf8', position, newline))
    position = newline + 1
  }
  return lines
}

/** The lines as a log read finds them: each newline found by the chunk's lines, checked against the bytes. */
function segmented(chunk: Buffer, segmentBytes: number): string[] {
  const texts = new ChunkLines(chunk, segmentBytes)
  const lines: string[] = []
  let position = 0
  for (let newline = texts.newlineAfter(0); newline !== -1; newline = texts.newlineAfter(position)) {
    expect(newline).toBe(chunk.indexOf(0x0a, position))
    lines.push(texts.line(position, newline))
    position = newline + 1
  }
  expect(chunk.indexOf(0x0a, position)).toBe(-1)
  return lines
}

describe('chunk lines', () => {
  it('reads each line as decoding it alone would, whatever the bytes and segment size', () => {
    const bytes = fc.oneof(
      // Text with multi-byte characters and newlines, cut anywhere (so also inside a character).
      fc.string({ unit: 'binary', maxLength: 200 }).map((text) => Buffer.from(text, 'utf8')),
      // Arbitrary bytes: invalid sequences, a lead byte right before a newline, and newlines.
      fc.uint8Array({ maxLength: 200 }).map((array) => Buffer.from(array)),
    )
    fc.assert(
      fc.property(fc.array(bytes, { maxLength: 6 }), fc.integer({ min: 1, max: 64 }), (parts, segment) => {
        const chunk = Buffer.concat(parts.flatMap((part) => [part, Buffer.from([0x0a])]))
        const cut = chunk.subarray(0, Math.max(0, chunk.length - (segment % 7)))
        expect(segmented(cut, segment)).toEqual(perLine(cut))
      }),
    )
  })

  it('finds the newlines of a segment of lone invalid bytes, each one character, as of ASCII', () => {
    const chunk = Buffer.from([0x80, 0x0a, 0xff, 0x41, 0x0a, 0xc3, 0x0a, 0x42, 0x0a])
    expect(segmented(chunk, 64)).toEqual(perLine(chunk))
  })

  it('reads lines longer than a segment whole', () => {
    const chunk = Buffer.from('{"a":"ééééé"}\nshort\n{"b":"long line here"}\ntorn', 'utf8')
    expect(segmented(chunk, 3)).toEqual(['{"a":"ééééé"}', 'short', '{"b":"long line here"}'])
  })
})
