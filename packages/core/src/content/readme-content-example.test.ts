import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as root from '../index'
import * as tools from '../tools'

// The example imports from the root and from the tools' entry.
const core = { ...root, ...tools }

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

describe('the README content-channel example', () => {
  it('runs as written', async () => {
    const block = /## Content channel[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1]
    expect(block).toBeDefined()
    const body = block!.replace(
      /^import \{ (.+) \} from '@strata-memory\/core(?:\/tools)?'\n/gm,
      'const { $1 } = core\n',
    )
    const run = new Function('core', `return (async () => {\n${body}\nreturn results\n})()`)
    expect(await run(core)).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^mem_/),
        where: 'content',
        type: 'note',
        tags: ['kpi'],
        snippet: 'Quarterly revenue rose 12% in Q3.',
      }),
    ])
  })
})
