import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base'
import { encode as encodeO200k } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { counterIdentity } from '../tokens'
import { gptTokenizer } from './gpt-tokenizer'

const samples = [
  'Hello, world! Strata keeps the prompt small.',
  '{"id":"3f2a9c1e","items":[1,2,3],"ok":true}',
  'function add(a: number, b: number) {\n  return a + b\n}',
  '记忆层让上下文保持简短。これは記憶です。기억 계층',
  '',
]
const asText = { disallowedSpecial: new Set<string>() }

describe('gptTokenizer', () => {
  it('counts exactly what the o200k_base and cl100k_base encoders produce', () => {
    const o200k = gptTokenizer()
    const cl100k = gptTokenizer({ encoding: 'cl100k_base' })
    expect([o200k.name, cl100k.name]).toEqual(['o200k_base', 'cl100k_base'])
    for (const text of samples) {
      expect(o200k.count(text)).toBe(encodeO200k(text, asText).length)
      expect(cl100k.count(text)).toBe(encodeCl100k(text, asText).length)
    }
    expect(o200k.count('Hello, world!')).toBeGreaterThan(1)
  })

  it('is named by its encoding, which its identity (with the version) carries into stored counts', () => {
    expect(gptTokenizer().name).toBe('o200k_base')
    expect(counterIdentity(gptTokenizer())).toBe('o200k_base@1')
    expect(counterIdentity(gptTokenizer({ encoding: 'cl100k_base' }))).toBe('cl100k_base@1')
  })

  it('counts special-token strings as text instead of throwing', () => {
    expect(gptTokenizer().count('before <|endoftext|> after')).toBeGreaterThan(3)
  })

  it('rejects an unknown encoding with a typed error', () => {
    expect(() => gptTokenizer({ encoding: 'p50k' as never })).toThrow(
      expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
    )
  })
})
