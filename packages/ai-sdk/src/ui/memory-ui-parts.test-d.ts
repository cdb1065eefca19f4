import { createUIMessageStream, type UIMessageStreamWriter } from 'ai'
import { describe, expectTypeOf, it } from 'vitest'
import type { MemoryTransitionData, StrataUIMessage } from './memory-ui-parts'

describe('StrataUIMessage', () => {
  it('types the transition part and the stats metadata for useChat', () => {
    const message = {} as StrataUIMessage
    const part = message.parts.find((candidate) => candidate.type === 'data-memory-transition')
    if (part?.type === 'data-memory-transition') expectTypeOf(part.data).toEqualTypeOf<MemoryTransitionData>()
    expectTypeOf(message.metadata?.strata?.savedRatio).toEqualTypeOf<number | undefined>()
  })

  it('lets a typed writer take the transition chunk and reject a malformed one', () => {
    createUIMessageStream<StrataUIMessage>({
      execute: ({ writer }) => {
        expectTypeOf(writer).toExtend<UIMessageStreamWriter<StrataUIMessage>>()
        writer.write({
          type: 'data-memory-transition',
          data: {
            threadId: 't',
            fromLevel: 'task',
            level: 'project',
            reason: 'task-complete',
            title: 'x',
            text: 'Done',
            seq: 3,
          },
        })
        // @ts-expect-error: the data must be a MemoryTransitionData
        writer.write({ type: 'data-memory-transition', data: { text: 'Done' } })
      },
    })
  })
})
