import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as root from '../index'
import * as tools from '../tools'

// The example imports from the root and from the tools' entry.
const core = { ...root, ...tools }

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

describe('the README resources example', () => {
  it('runs as written: the second thread sees the working memory and recalls the first', async () => {
    const block = /## Resources[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1]
    expect(block).toBeDefined()
    const body = block!.replace(
      /^import \{ (.+) \} from '@strata-memory\/core(?:\/tools)?'\n/gm,
      'const { $1 } = core\n',
    )
    const run = new Function(
      'core',
      `return (async () => {\n${body}\nreturn { messages, hits, update }\n})()`,
    )
    const { messages, hits, update } = await run(core)
    const texts = (messages as root.ContextMessage[]).map((message) =>
      message.content[0]?.type === 'text' ? message.content[0].text : '',
    )
    expect(texts[0]).toBe('[MEMORY:WORKING version=1]\n- Name: Ana\n- Diet: vegetarian')
    expect(texts[1]).toBe('[MEMORY:RECALL]\n- (ana.chat-1#1) I am vegetarian, plan a lentil soup for Friday.')
    expect(hits[0]).toMatchObject({ threadId: 'ana.chat-1', seq: 1, kind: 'item' })
    expect(update).toMatchObject({
      error: { code: 'STRATA_SEQ_CONFLICT' },
      current: { version: 1, content: '- Name: Ana\n- Diet: vegetarian' },
    })
  })
})
