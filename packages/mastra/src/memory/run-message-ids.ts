/** Ids of finished runs' messages remembered; beyond this, the oldest are forgotten. */
const REMEMBERED_IDS = 10_000

/**
 * The Mastra message ids of agent runs, so that `saveMessages` never stores what a run's processor
 * stores: the ids of runs in progress, and those of finished runs that stored their request. Mastra
 * saves some runs' messages again itself once they end (a supervisor saves its sub-agent's delegation
 * and answer), under ids the processor's stored items do not carry.
 */
export class RunMessageIds {
  /** The ids of running runs' messages, each with what ends its run's hold when the run suspends. */
  readonly #running = new Map<string, () => void>()
  readonly #stored = new Set<string>()

  /** Marks ids as a running run's; `suspended` ends the run's hold (see {@link saved}). */
  claim(ids: Iterable<string>, suspended: () => void): void {
    for (const id of ids) this.#running.set(id, suspended)
  }

  /**
   * A message Mastra saves itself: true when a run stores it (so `saveMessages` does not). Mastra
   * saves a run's messages when one of its tools suspends (`suspend()`), the suspension noted on the
   * answer (`content.metadata.suspendedTools`): the request ends there, so its hold ends too, as for
   * a call awaiting approval. The resumed run takes the thread again.
   */
  saved(message: { id: string; content?: { metadata?: unknown } }): boolean {
    const suspended = this.#running.get(message.id)
    if (suspended !== undefined) {
      const tools = (message.content?.metadata as { suspendedTools?: unknown } | undefined)?.suspendedTools
      if (typeof tools === 'object' && tools !== null && Object.keys(tools).length > 0) suspended()
      return true
    }
    return this.#stored.has(message.id)
  }

  /** The run ended: its ids are remembered as stored when it stored its request, else let go. */
  finish(ids: Iterable<string>, stored: boolean): void {
    for (const id of ids) {
      this.#running.delete(id)
      if (!stored) continue
      this.#stored.delete(id)
      this.#stored.add(id)
      if (this.#stored.size > REMEMBERED_IDS) this.#stored.delete(this.#stored.values().next().value!)
    }
  }
}
