import { StrataError } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { strataErrorResponse, strataOnError } from '../route/route-errors'
import { strataErrorFromResponse } from './strata-error-from-response'

const refusal = (reason: string) =>
  new StrataError({
    code: 'STRATA_REWIND_UNSAFE',
    message: `Cannot rewind thread 't' after seq 4: (${reason}).`,
    details: { threadId: 't', afterSeq: 4, reason },
  })

describe('texts for people, by the refusal’s reason', () => {
  it('a regenerate refused because the answer opened a scope does not say the chat was summarized', async () => {
    const info = await strataErrorFromResponse(strataErrorResponse(refusal('scope-changed')))
    expect(info.code).toBe('STRATA_REWIND_UNSAFE')
    expect(info.message).toMatch(/started or finished a part of the work/)
    expect(info.message).not.toMatch(/summarized/)
    expect(info.details).toMatchObject({ reason: 'scope-changed' })
  })

  it('each reason has its own text, in a JSON body and in a stream’s error alike', async () => {
    const texts = new Set<string>()
    for (const reason of ['compacted', 'scope-changed', 'tool-call-split']) {
      const fromBody = await strataErrorFromResponse(strataErrorResponse(refusal(reason)))
      texts.add(fromBody.message)
      expect(strataOnError(refusal(reason))).toBe(`STRATA_REWIND_UNSAFE: ${fromBody.message}`)
    }
    expect(texts.size).toBe(3)
    const compacted = await strataErrorFromResponse(strataErrorResponse(refusal('compacted')))
    expect(compacted.message).toMatch(/summarized/)
  })
})
