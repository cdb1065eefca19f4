import { StrataError } from '../errors'
import type { JsonObject } from '../items'
import type { StrataStoreBase } from '../stores/store'
import { hasSlotMethods } from '../stores/store-check'
import type { TokenCounter } from '../tokens'
import { DIGEST_SLOT, digestOf, type LogDigest, parseDigest } from './log-digest'

/**
 * The digest an open starts from: the slot's, on a store with slots; else, or when the slot holds
 * none usable (a thread written before slots), the state's. `state` is called only then. A slot that
 * does not parse (`STRATA_CORRUPT_LOG`) counts as none: the open replays, and the next write replaces it.
 */
export async function readDigest<L extends string>(
  store: StrataStoreBase,
  threadId: string,
  counter: TokenCounter,
  state: () => Promise<JsonObject | undefined> | JsonObject | undefined,
): Promise<LogDigest<L> | undefined> {
  if (hasSlotMethods(store)) {
    const slot = await store.getSlot(threadId, DIGEST_SLOT).catch((error: unknown) => {
      if (StrataError.isInstance(error, 'STRATA_CORRUPT_LOG')) return undefined
      throw error
    })
    const digest = parseDigest<L>(slot, counter)
    if (digest !== undefined) return digest
  }
  return digestOf<L>(await state(), counter)
}
