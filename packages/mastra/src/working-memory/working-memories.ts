import { invalidOptions, type JsonValue, type Memory, StrataError } from '@strata-memory/core'
import { toStrataResourceId } from '../memory/resource-binding'
import { isPlainObject } from '../messages/db-messages'
import { resolveStrataThreadId } from '../threads/thread-id-mapping'
import type { ThreadRecordWrites } from '../threads/thread-record-writes'
import { schemaProblem, type WorkingMemorySettings } from './working-memory-config'

/** Whose working memory: Mastra's thread and resource ids. */
export interface WorkingMemoryOwner {
  threadId?: string | undefined
  resourceId?: string | undefined
}

/** Times an unconditional resource write reads the version again after another writer moved it. */
const WRITE_ATTEMPTS = 5

/** A stored working memory as Mastra reads it: text as is, JSON as JSON text. */
const asText = (value: JsonValue): string => (typeof value === 'string' ? value : JSON.stringify(value))

/**
 * `update` merged into `base`: objects key by key (deeply), anything else replaced; a `null` in the
 * update removes the key. What a schema working memory's update means in Mastra: the model sends only
 * the fields it adds or changes.
 */
export function mergeWorkingMemory(base: unknown, update: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = isPlainObject(base) ? { ...base } : {}
  for (const [key, value] of Object.entries(update)) {
    if (value === null) delete merged[key]
    else if (isPlainObject(value)) merged[key] = mergeWorkingMemory(merged[key], value)
    else merged[key] = value
  }
  return merged
}

/**
 * The working memories of one `StrataMemory`. A resource's lives in core's resource memory
 * (`memory.resource(id)`, the Mastra resource id mapped as thread ids are); a thread's lives in the
 * Mastra thread record the Strata thread's state keeps. Mastra's writes carry no version: a resource
 * write reads the version and writes, again when another writer came between.
 */
export class WorkingMemories {
  readonly #memory: Memory
  readonly #records: ThreadRecordWrites

  constructor(memory: Memory, records: ThreadRecordWrites) {
    this.#memory = memory
    this.#records = records
  }

  #ownerId(settings: WorkingMemorySettings, owner: WorkingMemoryOwner, method: string): string {
    const id = settings.scope === 'resource' ? owner.resourceId : owner.threadId
    if (typeof id !== 'string' || id.length === 0) {
      invalidOptions(
        `StrataMemory.${method}(): the working memory's scope is '${settings.scope}': pass the ${settings.scope === 'resource' ? 'resourceId' : 'threadId'} whose working memory it is.`,
        { scope: settings.scope },
      )
    }
    return id
  }

  async #resource(resourceId: string) {
    return this.#memory.resource(await toStrataResourceId(resourceId))
  }

  /** The stored value, as stored (JSON or text), or undefined when never written. */
  async #value(settings: WorkingMemorySettings, owner: WorkingMemoryOwner, method: string) {
    const id = this.#ownerId(settings, owner, method)
    if (settings.scope === 'resource') return (await (await this.#resource(id)).getWorkingMemory())?.value
    const record = await this.#records.read(await resolveStrataThreadId(this.#memory.store, id))
    if (record?.workingMemory === undefined) return undefined
    if (settings.schema === undefined) return record.workingMemory
    try {
      return JSON.parse(record.workingMemory) as JsonValue
    } catch {
      return record.workingMemory
    }
  }

  /** The working memory as text (JSON text for a schema), or null when it was never written. */
  async read(settings: WorkingMemorySettings, owner: WorkingMemoryOwner, method = 'getWorkingMemory') {
    const value = await this.#value(settings, owner, method)
    return value === undefined ? null : asText(value)
  }

  /**
   * Writes the whole working memory (`updateWorkingMemory`): Markdown as it is; with a schema, JSON
   * text that fits it. Bad input is `STRATA_INVALID_OPTIONS`, nothing written.
   */
  async write(settings: WorkingMemorySettings, owner: WorkingMemoryOwner, text: string, method: string) {
    if (typeof text !== 'string')
      invalidOptions(`StrataMemory.${method}(): workingMemory must be a string (Markdown, or JSON text).`)
    await this.#store(
      settings,
      owner,
      await this.#checked(settings, this.#parsed(settings, text, method), method),
      method,
    )
  }

  /**
   * The model's update (the `updateWorkingMemory` tool): with a schema, JSON text holding the fields
   * to add or change, merged into what is stored; otherwise the whole new Markdown.
   */
  async update(settings: WorkingMemorySettings, owner: WorkingMemoryOwner, text: string) {
    const method = 'updateWorkingMemory'
    if (settings.schema === undefined) return this.write(settings, owner, text, method)
    const update = this.#parsed(settings, text, method)
    if (!isPlainObject(update)) {
      invalidOptions(
        'updateWorkingMemory: pass the fields to add or change as one JSON object in memory, e.g. {"name":"Ana"}. Nothing was written.',
      )
    }
    const merged = mergeWorkingMemory(await this.#value(settings, owner, method), update)
    await this.#store(settings, owner, await this.#checked(settings, merged, method), method)
  }

  #parsed(settings: WorkingMemorySettings, text: string, method: string): JsonValue {
    if (settings.schema === undefined) return text
    try {
      return JSON.parse(text) as JsonValue
    } catch {
      return invalidOptions(
        `${method}: this working memory has a schema, so it is JSON: pass JSON text that fits the schema (it did not parse). Nothing was written.`,
      )
    }
  }

  async #checked(settings: WorkingMemorySettings, value: unknown, method: string): Promise<JsonValue> {
    if (settings.schema === undefined) return value as JsonValue
    const problem = await schemaProblem(settings.schema, value)
    if (problem !== undefined) {
      invalidOptions(
        `${method}: the working memory does not fit its schema: ${problem}. Nothing was written; write a value the schema accepts.`,
        { problem },
      )
    }
    return value as JsonValue
  }

  async #store(settings: WorkingMemorySettings, owner: WorkingMemoryOwner, value: JsonValue, method: string) {
    const id = this.#ownerId(settings, owner, method)
    if (settings.scope === 'thread') {
      const strataId = await resolveStrataThreadId(this.#memory.store, id)
      const record = await this.#records.read(strataId)
      if (record === undefined) {
        throw new StrataError({
          code: 'STRATA_INVALID_THREAD_ID',
          message: `StrataMemory.${method}(): no thread ${JSON.stringify(id)}: save it first (saveThread or createThread), or call the agent with memory: { thread, resource }.`,
          details: { threadId: id, reason: 'not-found' },
        })
      }
      await this.#records.write(strataId, { ...record, workingMemory: asText(value) })
      return
    }
    const resource = await this.#resource(id)
    for (let attempt = 1; ; attempt++) {
      const current = await resource.getWorkingMemory()
      try {
        await resource.setWorkingMemory(value, { version: current?.version ?? 0 })
        return
      } catch (error) {
        if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT') || attempt >= WRITE_ATTEMPTS) throw error
      }
    }
  }
}
