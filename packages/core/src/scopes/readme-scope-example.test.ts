import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as root from '../index'
import * as tools from '../tools'

// The example imports from the root and from the tools' entry.
const core = { ...root, ...tools }

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

describe('the README scope-tools example', () => {
  it('runs as written and returns to the broadest level', async () => {
    const block = /## Scope tools[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1]
    expect(block).toBeDefined()
    const body = block!.replace(
      /^import \{ (.+) \} from '@strata-memory\/core(?:\/tools)?'\n/gm,
      'const { $1 } = core\n',
    )
    const run = new Function(
      'core',
      `return (async () => {\n${body}\nreturn { exited, level: thread.level }\n})()`,
    )
    expect(await run(core)).toEqual({
      exited: expect.objectContaining({
        level: 'global',
        closed: { level: 'project', title: 'Refund order 1182' },
        outcome: 'complete',
        scopes: [],
      }),
      level: 'global',
    })
  })
})
