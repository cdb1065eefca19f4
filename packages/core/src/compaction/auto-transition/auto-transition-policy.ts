import type { SummaryItem, TransitionItem } from '../../items'
import { keepRecentScopes } from '../../views'
import type { PolicyDefinition } from '../compaction-policy'
import type { AutoTransitionCompaction } from './auto-transition-options'
import { autoTransitionItems } from './auto-transition-run'

/**
 * The automatic transitions: before an append's messages are stored, the transition that closes a
 * scope past its limits (emitted as a `transition` event once stored); a context of the broadest
 * level shows only the newest `keepScopes` closed scopes.
 */
export const autoTransitionPolicy: PolicyDefinition<AutoTransitionCompaction> = {
  name: 'autoTransitions',
  create({ state, closing }) {
    return {
      name: 'autoTransitions',
      enabled: () => state.deps.compaction.autoTransitions !== false,
      async beforeAppend(messages) {
        const auto = await autoTransitionItems(state, closing, messages)
        if (auto === undefined) return undefined
        return {
          items: auto.items,
          afterStored(stored) {
            const transition = stored[0] as TransitionItem
            const summary = stored[1] as SummaryItem
            state.deps.events.emit('transition', { threadId: state.id, transition, summary, ...auto.event })
          },
        }
      },
      beforeContext(view, level) {
        const options = state.deps.compaction.autoTransitions
        return options !== false && level === state.deps.ladder.broadest
          ? keepRecentScopes(view, options.keepScopes)
          : view
      },
    }
  },
}
