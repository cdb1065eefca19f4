import { invalidOptions } from '../errors'
import { assertThreadId } from '../items'

/** How a sub-agent's thread reaches its parent's content. */
export type ContentAccess = 'shared' | 'read-only'

/** The `content` option of `memory.thread(id, options)`: whose content store the thread uses. */
export interface ThreadContentOptions {
  /** The thread whose content this one uses (a sub-agent's parent). */
  parent: string
  /**
   * `shared`: read and write the parent's content (what the sub-agent stores, the parent sees);
   * `read-only`: read the parent's content; explicit writes (`memory_store`, `import`) are rejected
   * with `STRATA_CONTENT_READ_ONLY`, and the thread's own large results are kept in its own content.
   * @default 'shared'
   */
  access?: ContentAccess
}

/** Options of `memory.thread(id, options)`. */
export interface ThreadOptions {
  /** Share a parent thread's content. @default the thread's own content (isolated) */
  content?: ThreadContentOptions
  /**
   * The resource (a user, a team, an account) the thread belongs to: bound on the first open, in the
   * store. Opening it later with another resource is `STRATA_INVALID_OPTIONS`: move a thread with
   * `memory.resource(id).adoptThread(threadId)`. Needs a store with `flags.resources`.
   * @default the binding the store holds, or none
   */
  resource?: string
  /**
   * The thread's own input budget: its contexts are fitted to `inputTokens` and budget compaction
   * keeps it under them (the smaller of this and the memory's `compaction.budget` holds; without a
   * memory budget, the thread gets budget compaction with its defaults). Opening the thread again
   * with another budget changes it for what follows; `'memory'`: the memory's budget again.
   * @default the memory's `compaction.budget`, or the budget the open thread was last given
   */
  budget?: { inputTokens: number } | 'memory'
}

/** Where a thread's content lives, resolved. */
export interface ContentBinding {
  /** The thread id whose content store is read (and, unless read-only, written). */
  owner: string
  /** `own`: isolated, the thread's own content. */
  access: 'own' | ContentAccess
}

/** Checks a thread's options and resolves its content binding. */
export function resolveContentBinding(threadId: string, options: ThreadOptions | undefined): ContentBinding {
  if (options === undefined) return { owner: threadId, access: 'own' }
  if (typeof options !== 'object' || options === null) {
    invalidOptions(
      `memory.thread('${threadId}', options): options must be an object like { content: { parent, access } }.`,
    )
  }
  const content = options.content
  if (content === undefined) return { owner: threadId, access: 'own' }
  if (typeof content !== 'object' || content === null || typeof content.parent !== 'string') {
    invalidOptions(
      `memory.thread('${threadId}'): content must be { parent: '<thread id>', access?: 'shared' | 'read-only' }.`,
    )
  }
  assertThreadId(content.parent)
  const access = content.access ?? 'shared'
  if (access !== 'shared' && access !== 'read-only') {
    invalidOptions(
      `memory.thread('${threadId}'): content.access must be 'shared' or 'read-only' (got ${JSON.stringify(access)}); leave content out for the thread's own content.`,
      { access },
    )
  }
  if (content.parent === threadId) {
    invalidOptions(
      `memory.thread('${threadId}'): a thread cannot be its own content parent; leave content out for its own content.`,
    )
  }
  return { owner: content.parent, access }
}
