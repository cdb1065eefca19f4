import { StrataError } from '../errors'
import type { JsonObject } from '../items'
import { entryFilter, hasFilters } from './memory-query'
import type {
  MemoryQueryOutput,
  MemoryRetrieveOutput,
  MemoryStoreOutput,
  MemoryTool,
  MemoryToolError,
  MemoryTools,
  MemoryUpdateWorkingConflict,
  MemoryUpdateWorkingInput,
  MemoryUpdateWorkingOutput,
  ToolResource,
} from './memory-tool-types'
import { RETRIEVE_TRANSFORMS } from './retrieve-transform'
import type { ThreadContent } from './thread-content'
import { checkQueryInput } from './tool-input'

/** What {@link memoryTools} needs of a thread: its content channel, and its resource when it has one. */
export interface ThreadWithContent {
  readonly content: ThreadContent
  /** The thread's resource (`memory.thread(id, { resource })`): adds `memory_update_working` and `scope: 'resource'`. */
  readonly resource?: { readonly id: string } | undefined
}

/** The thread's resource as the resource tools use it, when it has one. */
function toolResource(thread: ThreadWithContent): ToolResource | undefined {
  const resource = thread.resource as Partial<ToolResource> | undefined
  return typeof resource?.queryHits === 'function' && typeof resource.writeWorking === 'function'
    ? (resource as ToolResource)
    : undefined
}

/** `memory_query` with `scope: 'resource'`: every thread of the thread's resource, ranked together. */
async function queryResource(thread: ThreadWithContent, input: unknown): Promise<MemoryQueryOutput> {
  const query = checkQueryInput(input)
  const resource = toolResource(thread)
  if (resource === undefined) {
    throw new StrataError({
      code: 'STRATA_INVALID_OPTIONS',
      message:
        'memory_query: this conversation belongs to no resource (user), so scope "resource" has nothing more to search; use scope "thread" or leave it out.',
      details: { scope: 'resource' },
    })
  }
  // Without filters the resource's index ranks from its postings alone.
  const filter = hasFilters(query) ? entryFilter(query) : undefined
  const results = await resource.queryHits(query.words.join(' '), query.limit, filter)
  return { results }
}

/** Checks `memory_update_working`'s input: `content` a string, `version` an integer ≥ 0. */
function checkUpdateWorkingInput(input: unknown): MemoryUpdateWorkingInput {
  const fail = (message: string): never => {
    throw new StrataError({ code: 'STRATA_INVALID_OPTIONS', message: `memory_update_working: ${message}` })
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    fail('the input must be an object like { "content": "…", "version": 3 }.')
  const { content, version, ...rest } = input as Record<string, unknown>
  if (Object.keys(rest).length > 0)
    fail(`unknown keys ${Object.keys(rest).join(', ')}; pass content and version only.`)
  if (typeof content !== 'string') fail('content must be the whole new working memory, as a string.')
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0)
    fail('version must be the version shown as [MEMORY:WORKING version=N] (0 when there is none).')
  return { content: content as string, version: version as number }
}

/** `memory_update_working`: a stale version gives the current version and content back. */
async function updateWorking(
  resource: ToolResource,
  input: unknown,
): Promise<MemoryUpdateWorkingOutput | MemoryUpdateWorkingConflict | MemoryToolError> {
  return runTool(async () => {
    const { content, version } = checkUpdateWorkingInput(input)
    try {
      return await resource.writeWorking(content, version)
    } catch (error) {
      if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')) throw error
      const current = await resource.readWorking()
      return {
        error: {
          code: 'STRATA_SEQ_CONFLICT' as const,
          message: `memory_update_working: the working memory changed since version ${version}; it is now at version ${current.version} (its content is in "current"). Merge your change into it and write again with version ${current.version}.`,
        },
        current,
      }
    }
  })
}

/**
 * Runs a tool: an error the input caused (any `StrataError`) becomes a {@link MemoryToolError} the
 * model can read and act on; anything else (a store outage) is thrown to the caller.
 */
export async function runTool<Output>(operation: () => Promise<Output>): Promise<Output | MemoryToolError> {
  try {
    return await operation()
  } catch (error) {
    if (StrataError.isInstance(error)) return { error: { code: error.code, message: error.message } }
    throw error
  }
}

const storeSchema: JsonObject = {
  type: 'object',
  properties: {
    content: { type: 'string', description: 'The text to keep. Serialise JSON and pass type "json".' },
    type: { type: 'string', description: 'What it is, e.g. "text", "json", "note". Default "text".' },
    tags: {
      type: 'array',
      items: { type: 'string' },
      description: 'Labels to find it by with memory_query.',
    },
  },
  required: ['content'],
}

const retrieveSchema: JsonObject = {
  type: 'object',
  properties: {
    id: {
      type: 'string',
      description: 'A memory id from a citation ("Memory id: mem_…") or an id from memory_query.',
    },
    transform: {
      type: 'string',
      enum: [...RETRIEVE_TRANSFORMS],
      description:
        'full (default): everything; excerpt: maxChars characters, centred on pattern when given; summary: an outline; first_n / last_n: n lines (text) or elements (JSON); filtered: the lines containing pattern, or for JSON the document with its lists (at any depth) cut to the elements containing pattern, never larger than the original.',
    },
    n: {
      type: 'integer',
      minimum: 1,
      description: 'first_n / last_n: how many lines or elements. Default 20.',
    },
    pattern: {
      type: 'string',
      description:
        'filtered: keep the lines, or the JSON list elements, containing it (case-insensitive); excerpt: centre on it.',
    },
    maxChars: {
      type: 'integer',
      minimum: 1,
      description: 'excerpt / summary length cap. Default 1000 / 800.',
    },
  },
  required: ['id'],
}

const querySchema: JsonObject = {
  type: 'object',
  properties: {
    text: {
      type: 'string',
      description:
        'Words to look for, e.g. "PO-7001 vendor" or "payment run decision". Entries holding any of them are ranked best first: rare words and more of them count most. Case, accents and plurals do not matter.',
    },
    type: {
      type: 'string',
      description: 'e.g. "web-page", "json", "text", "tool-result", "message", "summary", "fact".',
    },
    source: {
      type: 'string',
      description: 'The tool that produced it (or "user", "assistant", "memory_store").',
    },
    tags: { type: 'array', items: { type: 'string' }, description: 'Every tag listed must be present.' },
    fromTs: { type: 'number', description: 'Not older than this time, epoch ms.' },
    toTs: { type: 'number', description: 'Not newer than this time, epoch ms.' },
    level: { type: 'string', description: 'The memory level it was produced at, e.g. "task".' },
    limit: {
      type: 'integer',
      minimum: 1,
      description: 'At most this many results (default 10, at most 100).',
    },
    scope: {
      type: 'string',
      enum: ['thread', 'resource'],
      description:
        'thread (default): this conversation; resource: every conversation with this user, each result naming its threadId (memory_retrieve reads only this conversation).',
    },
  },
}

const updateWorkingSchema: JsonObject = {
  type: 'object',
  properties: {
    content: {
      type: 'string',
      description:
        'The whole new working memory (it replaces the old one): keep what still holds, add what changed.',
    },
    version: {
      type: 'integer',
      minimum: 0,
      description: 'The version shown in [MEMORY:WORKING version=N] (0 when the context shows none).',
    },
  },
  required: ['content', 'version'],
}

/**
 * The three memory tools bound to one thread, framework-neutral: a name, a description for the model,
 * a JSON Schema for the input and `execute`. Adapters wrap them in their framework's tool type. A bad
 * input, an unknown id or a refused write gives `{ error: { code, message } }`, never a throw.
 *
 * @example
 * const tools = memoryTools(thread)
 * const { results } = await tools.memory_query.execute({ text: 'invoice total' })
 */
export function memoryTools(thread: ThreadWithContent): MemoryTools {
  const content = () => thread.content
  const tools = {
    memory_store: {
      name: 'memory_store',
      description:
        'Store text (or JSON) in long-term memory outside the conversation and get a memory id back. Use it for material you will need later but not in every turn.',
      inputSchema: storeSchema,
      execute: (input) => runTool<MemoryStoreOutput>(() => content().put(input)),
    } satisfies MemoryTool<unknown, MemoryStoreOutput>,
    memory_retrieve: {
      name: 'memory_retrieve',
      description:
        'Read back a stored memory by id: a large tool result shown as a citation, something stored with memory_store, or any id memory_query returned. Use a transform to read only part of a large one.',
      inputSchema: retrieveSchema,
      execute: (input) => runTool<MemoryRetrieveOutput>(() => content().retrieve(input)),
    } satisfies MemoryTool<unknown, MemoryRetrieveOutput>,
    memory_query: {
      name: 'memory_query',
      description:
        'Search everything this conversation ever held (stored tool results, earlier messages hidden from the context, archived turns, summaries and facts) by words, type, source, tags, time or level. With text, results are ranked best first (BM25: entries holding more of your words, and rarer ones, rank higher; any word is enough to be found); without it, newest first. Each result has an id and a snippet where your words meet; read one with memory_retrieve. Your own memory tool calls are not searched.',
      inputSchema: querySchema,
      execute: (input) =>
        runTool<MemoryQueryOutput>(() =>
          (input as { scope?: unknown } | null | undefined)?.scope === 'resource'
            ? queryResource(thread, input)
            : content().query(input ?? {}),
        ),
    } satisfies MemoryTool<unknown, MemoryQueryOutput>,
  }
  const resource = toolResource(thread)
  if (resource === undefined) return tools as MemoryTools
  return {
    ...tools,
    memory_update_working: {
      name: 'memory_update_working',
      description: `Rewrite the working memory: what stays true about this user across all conversations (name, preferences, goals, ongoing work), shown to you as [MEMORY:WORKING version=N]. Pass the whole new content and the version N you saw; if someone wrote it meanwhile you get the current version and content back to merge and retry. ${resource.workingGuide()}`,
      inputSchema: updateWorkingSchema,
      execute: (input) => updateWorking(toolResource(thread) ?? resource, input),
    },
  } as MemoryTools
}
