import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { appStore, budgetTokens, createAppMemory } from './memory'

describe('the store of the app', () => {
  it("is the file store, in STRATA_MEMORY_DIR when set (the app folder's .strata/ otherwise)", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-web-store-'))
    try {
      const store = appStore({ STRATA_MEMORY_DIR: dir })
      expect(store.name).toBe('file')
      const thread = await createAppMemory(store).thread('web.store')
      await thread.append({ role: 'user', content: 'Hello' })
      expect(existsSync(join(dir, 'agents', 'web.store', 'raw_traces.jsonl'))).toBe(true)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('is Redis when REDIS_URL is set (it connects on first use, not here)', async () => {
    const store = appStore({ REDIS_URL: 'redis://127.0.0.1:1' })
    expect(store.name).toBe('redis')
    // persistent: not claimed until the store's first call has read the server's configuration.
    expect(store.flags).toEqual({
      persistent: false,
      shared: true,
      leases: true,
      resources: true,
      audit: true,
      slots: true,
    })
  })

  it('takes the input budget from STRATA_WEB_BUDGET_TOKENS when it is a whole number of at least 1 000', () => {
    expect(budgetTokens({ STRATA_WEB_BUDGET_TOKENS: '6000' })).toBe(6000)
    expect(budgetTokens({})).toBeUndefined()
    for (const bad of ['12', '6000.5', 'lots', '']) {
      expect(budgetTokens({ STRATA_WEB_BUDGET_TOKENS: bad }), bad).toBeUndefined()
    }
  })
})
