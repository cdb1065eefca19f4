import { type ToolSet, tool } from 'ai'
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import type { LoadUIMessagesOptions } from './load-ui-messages'
import { loadUIMessages } from './load-ui-messages'
import type { MemoryCompactionData, StrataUIMessage } from './memory-ui-parts'

const tools = {
  weather: tool({
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, celsius: 4 }),
  }),
}

describe('StrataUIMessage<typeof tools>', () => {
  it('types each tool part by its name: input and output without casts', () => {
    const message = {} as StrataUIMessage<typeof tools>
    for (const part of message.parts) {
      if (part.type === 'tool-weather') {
        expectTypeOf(part.toolCallId).toEqualTypeOf<string>()
        if (part.state === 'output-available') {
          expectTypeOf(part.input).toEqualTypeOf<{ city: string }>()
          expectTypeOf(part.output).toEqualTypeOf<{ city: string; celsius: number }>()
        }
      }
      if (part.type === 'data-memory-compaction')
        expectTypeOf(part.data).toEqualTypeOf<MemoryCompactionData>()
    }
    // @ts-expect-error: no such tool
    message.parts.filter((part) => part.type === 'tool-nope')
  })

  it('loadUIMessages returns the typed messages, the budget in the metadata', async () => {
    const messages = await loadUIMessages<typeof tools>({} as never, 'chat')
    expectTypeOf(messages).toEqualTypeOf<StrataUIMessage<typeof tools>[]>()
    expectTypeOf(messages[0]!.metadata?.strata?.inputBudget).toEqualTypeOf<number | undefined>()
    expectTypeOf(messages[0]!.metadata?.strata?.seq).toEqualTypeOf<number | undefined>()
    expectTypeOf<LoadUIMessagesOptions>().toEqualTypeOf<{
      visibleOnly?: boolean
      limit?: number
      before?: string
      tools?: ToolSet
    }>()
  })

  it("loadUIMessages given the route's tools types the messages by them, as useChat<StrataUIMessage<typeof tools>> wants", async () => {
    const messages = await loadUIMessages({} as never, 'chat', { limit: 100, tools })
    expectTypeOf(messages).toEqualTypeOf<StrataUIMessage<typeof tools>[]>()
    const initialMessages: StrataUIMessage<typeof tools>[] = messages
    expectTypeOf(initialMessages).toEqualTypeOf(messages)
    // Without them the messages are the untyped ones, which a typed chat does not take.
    const untyped = await loadUIMessages({} as never, 'chat', { limit: 100 })
    // @ts-expect-error: a tool part of any name is not a tool-weather part
    const typed: StrataUIMessage<typeof tools>[] = untyped
    expectTypeOf(typed).not.toBeAny()
  })
})
