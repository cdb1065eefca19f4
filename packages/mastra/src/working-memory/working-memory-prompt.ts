import { DEFAULT_WORKING_MEMORY_TEMPLATE, type WorkingMemorySettings } from './working-memory-config'

/** The name of the tool the model rewrites its working memory with: the one Mastra recognises. */
export const UPDATE_WORKING_MEMORY_TOOL = 'updateWorkingMemory'

/** What the model is shown to fill in: the template, the schema as JSON Schema, or Strata's default. */
function shape(settings: WorkingMemorySettings): string {
  if (settings.jsonSchema !== undefined)
    return `JSON matching this JSON Schema: ${JSON.stringify(settings.jsonSchema)}`
  return `Markdown following this template:\n${settings.template ?? DEFAULT_WORKING_MEMORY_TEMPLATE}`
}

/**
 * The system message that shows the model its working memory and how to keep it, sent after the
 * agent's instructions (counted with them against the budget). A thread's working memory is shown
 * here, under `[MEMORY:WORKING]`; a resource's is core's `[MEMORY:WORKING version=N]` slot of the
 * context of a thread bound to it (`shownByContext`), else here too: it is shown once. `readOnly`:
 * shown, not to be changed.
 */
export function workingMemoryPrompt(
  settings: WorkingMemorySettings,
  stored: string | null,
  { readOnly, shownByContext }: { readOnly: boolean; shownByContext: boolean },
): string {
  const whose =
    settings.scope === 'resource' ? 'the user, across all of their conversations' : 'this conversation'
  const lines = [`[WORKING MEMORY]`, `Your working memory holds what stays true about ${whose}.`]
  if (settings.scope === 'thread' || !shownByContext)
    lines.push('', '[MEMORY:WORKING]', stored ?? '(empty)', '')
  else lines.push(stored === null ? 'It is empty.' : 'It is shown as [MEMORY:WORKING].')
  if (readOnly || !settings.agentManaged) {
    lines.push('It cannot be changed in this conversation: read it, do not try to update it.')
    return lines.join('\n')
  }
  const how =
    settings.jsonSchema === undefined
      ? 'the whole new working memory (what you leave out is removed)'
      : 'a JSON object with only the fields to add or change (they are merged into what is stored; null removes a field)'
  lines.push(
    `When you learn something worth keeping (names, preferences, goals, ongoing work), call the ${UPDATE_WORKING_MEMORY_TOOL} tool with { memory: ${how} }, as ${shape(settings)}`,
    'Keep it short and current. The user does not see it; do not mention it.',
  )
  return lines.join('\n')
}
