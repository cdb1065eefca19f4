import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as core from './index'

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')

describe('the README usage example', () => {
  it('runs as written and prints the context roles and the tokens saved', async () => {
    const block = /## Usage\s+```ts\n([\s\S]*?)```/.exec(readme)?.[1]
    expect(block).toBeDefined()
    expect(block!.split('\n').filter(Boolean).length).toBeLessThanOrEqual(15)
    const body = block!.replace(/^import \{ (.+) \} from '@strata-memory\/core'\n/m, 'const { $1 } = core\n')
    const printed: unknown[][] = []
    const run = new Function('core', 'console', `return (async () => {\n${body}\n})()`)
    await run(core, { log: (...args: unknown[]) => printed.push(args) })
    expect(printed).toHaveLength(1)
    const [roles, saved] = printed[0] as [string[], string]
    expect(roles).toEqual(['system', 'user', 'user', 'user', 'user'])
    expect(saved).toMatch(/^\d+% saved$/)
  })
})
