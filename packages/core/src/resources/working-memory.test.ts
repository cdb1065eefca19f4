import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'

const caught = async (run: () => Promise<unknown>) => {
  try {
    await run()
  } catch (error) {
    return error as StrataError
  }
  throw new Error('expected a refusal')
}

const profileSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    diet: { enum: ['vegetarian', 'vegan', 'any'] },
    age: { type: 'integer', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
  },
  required: ['name'],
  additionalProperties: false,
}

describe('working memory', () => {
  it('is versioned: each write names the version it read; a stale one is STRATA_SEQ_CONFLICT and changes nothing', async () => {
    const memory = createMemory()
    const user = memory.resource('user-1')
    expect(await user.getWorkingMemory()).toBeUndefined()
    const first = await user.setWorkingMemory('Name: Ana', { version: 0 })
    expect(first).toMatchObject({ value: 'Name: Ana', version: 1 })
    const second = await user.setWorkingMemory({ name: 'Ana', likes: ['tea'] }, { version: 1 })
    expect(second.version).toBe(2)
    const stale = await caught(() => user.setWorkingMemory('Name: Bob', { version: 1 }))
    expect(StrataError.isInstance(stale, 'STRATA_SEQ_CONFLICT')).toBe(true)
    expect(stale.details).toMatchObject({ expectedVersion: 1, actualVersion: 2 })
    expect(await user.getWorkingMemory()).toMatchObject({
      value: { name: 'Ana', likes: ['tea'] },
      version: 2,
    })
  })

  it('two memories writing at once from the same version: one wins, the other gets the typed conflict', async () => {
    const store = inMemoryStore()
    const writers = [createMemory({ store }), createMemory({ store })]
    const results = await Promise.allSettled(
      writers.map((memory, index) =>
        memory.resource('user-1').setWorkingMemory(`writer ${index}`, { version: 0 }),
      ),
    )
    const won = results.filter((result) => result.status === 'fulfilled')
    const lost = results.filter((result) => result.status === 'rejected') as PromiseRejectedResult[]
    expect(won).toHaveLength(1)
    expect(lost).toHaveLength(1)
    expect(StrataError.isInstance(lost[0]!.reason, 'STRATA_SEQ_CONFLICT')).toBe(true)
    const stored = await writers[0]!.resource('user-1').getWorkingMemory()
    expect(stored?.value).toBe((won[0] as PromiseFulfilledResult<{ value: string }>).value.value)
    expect(stored?.version).toBe(1)
  })

  it('checks writes against the schema: a value that does not fit is refused, saying where, and nothing is written', async () => {
    const memory = createMemory({ resources: { workingMemory: { schema: profileSchema } } })
    const user = memory.resource('user-1')
    await user.setWorkingMemory({ name: 'Ana', diet: 'vegan', tags: ['a'] }, { version: 0 })
    const bad: [unknown, RegExp][] = [
      [{ diet: 'vegan' }, /\$\.name is required/],
      [{ name: '' }, /\$\.name must have at least 1 characters/],
      [{ name: 'Ana', diet: 'keto' }, /\$\.diet must be one of/],
      [{ name: 'Ana', age: 3.5 }, /\$\.age must be integer/],
      [{ name: 'Ana', tags: ['a', 'b', 'c', 'd'] }, /\$\.tags must have at most 3 elements/],
      [{ name: 'Ana', tags: [1] }, /\$\.tags\[0\] must be string/],
      [{ name: 'Ana', shoe: 42 }, /\$\.shoe is not allowed/],
      ['Ana', /\$ must be object, not string/],
    ]
    for (const [value, message] of bad) {
      const error = await caught(() => user.setWorkingMemory(value as never, { version: 1 }))
      expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS'), JSON.stringify(value)).toBe(true)
      expect(error.message).toMatch(message)
      expect(error.message).toContain('Nothing was written')
    }
    expect(await user.getWorkingMemory()).toMatchObject({ version: 1, value: { name: 'Ana', diet: 'vegan' } })
  })

  it('refuses a schema keyword it does not check when the memory is created, and other bad options', () => {
    expect(() =>
      createMemory({ resources: { workingMemory: { schema: { type: 'object', patternProperties: {} } } } }),
    ).toThrowError(/keyword 'patternProperties' is not checked/)
    expect(() => createMemory({ resources: { workingMemory: { schema: { type: 'date' } } } })).toThrowError(
      /type must be one of/,
    )
    expect(() => createMemory({ resources: { workingMemory: { maxTokens: 0 } } })).toThrowError(/maxTokens/)
    expect(() => createMemory({ resources: { recall: { limit: 0 } } })).toThrowError(/recall.limit/)
  })

  it('refuses a write over maxTokens, a bad version and a value that is not JSON', async () => {
    const memory = createMemory({ resources: { workingMemory: { maxTokens: 20 } } })
    const user = memory.resource('user-1')
    const long = await caught(() => user.setWorkingMemory('word '.repeat(200), { version: 0 }))
    expect(long.code).toBe('STRATA_INVALID_OPTIONS')
    expect(long.message).toMatch(/over its 20 \(resources.workingMemory.maxTokens\)/)
    expect((await caught(() => user.setWorkingMemory('ok', { version: -1 }))).message).toMatch(
      /version must be/,
    )
    expect((await caught(() => user.setWorkingMemory('ok', {} as never))).message).toMatch(/version must be/)
    expect(
      (await caught(() => user.setWorkingMemory({ at: new Date() } as never, { version: 0 }))).code,
    ).toBe('STRATA_NOT_SERIALIZABLE')
    expect(await user.getWorkingMemory()).toBeUndefined()
  })
})
