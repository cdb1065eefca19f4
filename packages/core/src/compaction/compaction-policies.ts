import { invalidOptions } from '../errors'
import type { Item, NormalizedMessage } from '../items'
import type { CompactionPolicy, PolicyItems, PolicyUsage } from './compaction-policy'

/**
 * A thread's compaction policies, called in the registry's order at each moment of the contract
 * ({@link CompactionPolicy}): the thread talks to this list, never to one policy by name.
 */
export class CompactionPolicies<L extends string> {
  readonly #policies: readonly CompactionPolicy<L>[]

  constructor(policies: readonly CompactionPolicy<L>[]) {
    this.#policies = policies
  }

  /** The items the policies store ahead of an append's messages, and who is told them once stored. */
  async beforeAppend(messages: readonly NormalizedMessage[]): Promise<PolicyItems<L> | undefined> {
    const parts: PolicyItems<L>[] = []
    for (const policy of this.#policies) {
      const part = await policy.beforeAppend?.(messages)
      if (part !== undefined && part.items.length > 0) parts.push(part)
    }
    if (parts.length === 0) return undefined
    return {
      items: parts.flatMap((part) => part.items),
      afterStored: (stored) => {
        let from = 0
        for (const part of parts) {
          part.afterStored?.(stored.slice(from, from + part.items.length))
          from += part.items.length
        }
      },
    }
  }

  afterWrite() {
    for (const policy of this.#policies) policy.afterWrite?.()
  }

  onUsage(usage: PolicyUsage) {
    for (const policy of this.#policies) policy.onUsage?.(usage)
  }

  beforeContext(view: Item<L>[], level: L): Item<L>[] {
    let shown = view
    for (const policy of this.#policies) shown = policy.beforeContext?.(shown, level) ?? shown
    return shown
  }

  /** The smallest input budget a policy holds contexts to, or undefined when none does. */
  inputBudget(): number | undefined {
    let budget: number | undefined
    for (const policy of this.#policies) {
      const held = policy.inputBudget?.()
      if (held !== undefined) budget = budget === undefined ? held : Math.min(budget, held)
    }
    return budget
  }

  afterContext(built: { systemTokens: number }) {
    for (const policy of this.#policies) policy.afterContext?.(built)
  }

  /**
   * `thread.compact()`: each enabled policy that compacts by hand, one after the other.
   * `STRATA_INVALID_OPTIONS` when none is enabled.
   */
  async compact(request: { force: boolean }): Promise<void> {
    const manual = this.#policies.filter((policy) => policy.compact !== undefined)
    const enabled = manual.filter((policy) => policy.enabled())
    if (enabled.length === 0) {
      invalidOptions(
        `compact(): no compaction policy is enabled; pass compaction: { ${manual.map((policy) => policy.name).join(', ')} } to createMemory.`,
      )
    }
    for (const policy of enabled) await policy.compact!(request)
  }

  async beforeRewind(): Promise<void> {
    for (const policy of this.#policies) await policy.beforeRewind?.()
  }

  async settled(): Promise<void> {
    await Promise.all(this.#policies.map((policy) => policy.settled?.()))
  }

  status(): Record<string, unknown> {
    return Object.assign({}, ...this.#policies.map((policy) => policy.status?.() ?? {}))
  }

  /** The raw tail a snapshot shows: the first policy's that sets one. */
  rawTailTurns(): number | undefined {
    for (const policy of this.#policies) {
      const turns = policy.rawTailTurns?.()
      if (turns !== undefined) return turns
    }
    return undefined
  }
}
