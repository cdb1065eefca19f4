import type { CompactionState } from '../compaction/policy-registry'
import { type ContentBinding, ThreadContent } from '../content'
import { countPartTokens } from '../tokens'
import type { ContextAssembly } from './context-assembly'
import type { ThreadResourceLink } from './thread-resource'

/** What a thread's content channel is wired to. */
export interface ThreadContentParts<L extends string> {
  state: CompactionState<L>
  binding: ContentBinding
  contexts: ContextAssembly<L>
  resource: ThreadResourceLink | undefined
}

/**
 * The thread's content channel (`thread.content`), wired to its state: the store, the current level,
 * the active history and the archive it looks results up in. Set as the state's `content` too (the
 * write path offloads through it).
 */
export function threadContent<L extends string>({
  state,
  binding,
  contexts,
  resource,
}: ThreadContentParts<L>): ThreadContent {
  const { deps } = state
  const content = new ThreadContent({
    threadId: state.id,
    // Read at each call: the memory wraps its store in spans once an adapter passes a tracer.
    get store() {
      return deps.store
    },
    binding,
    options: deps.content,
    summarizer: deps.summarizer,
    clock: deps.clock,
    generateId: deps.generateId,
    level: () => state.level,
    levels: deps.ladder.levels,
    countPart: (part) => countPartTokens(part, deps.tokenCounter),
    history: () => contexts.history(),
    activeItem: (itemId) => contexts.activeItem(itemId),
    viewIds: () => contexts.viewIds(),
    archivedItem: (itemId) => state.log.index.archivedItem(itemId),
    stored: (space) => resource?.contentStored(space),
    ...(deps.indexes === undefined ? {} : { indexes: deps.indexes }),
  })
  state.content = content
  return content
}
