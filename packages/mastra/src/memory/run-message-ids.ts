/** Ids of finished runs' messages remembered; beyond this, the oldest are forgotten. */
const REMEMBERED_IDS = 10_000

/**
 * The Mastra message ids of agent runs, so that `saveMessages` never stores what a run's processor
 * stores: the ids of runs in progress, and those of finished runs that stored their request. Mastra
 * saves some runs' messages again itself once they end (a supervisor saves its sub-agent's delegation
 * and answer), under ids the processor's stored items do not carry.
 */
export class RunMessageIds {
  readonly #running = new Set<string>()
  readonly #stored = new Set<string>()

  /** Marks ids as a running run's. */
  claim(ids: Iterable<string>): void {
    for (const id of ids) this.#running.add(id)
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

  /** Whether a run stores or stored the message with this id. */
  has(id: string): boolean {
    return this.#running.has(id) || this.#stored.has(id)
  }
}
