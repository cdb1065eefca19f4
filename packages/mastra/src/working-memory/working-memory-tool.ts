import { createTool } from '@mastra/core/tools'
import { StrataError } from '@strata-memory/core'
import type { MastraTool } from '../tools/strata-tools'
import type { WorkingMemoryOwner } from './working-memories'
import type { WorkingMemorySettings } from './working-memory-config'

/**
 * The tool's input: `memory`, the whole new Markdown; with a schema, the fields to add or change as a
 * JSON object (what the working memory's system message asks for), or the same as JSON text.
 */
function inputSchemaOf(settings: WorkingMemorySettings) {
  const memory =
    settings.schema === undefined
      ? { type: 'string', description: 'The working memory: the whole new Markdown.' }
      : {
          anyOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }],
          description:
            'The fields to add or change, as a JSON object (or JSON text): merged into what is stored.',
        }
  return { type: 'object', properties: { memory }, required: ['memory'], additionalProperties: false }
}

/**
 * The `updateWorkingMemory` tool (the name Mastra recognises) on the agent's thread and resource, from
 * the tool's execution context. A refused write (bad JSON, a value outside the schema) comes back to
 * the model as `{ error: { code, message } }`, nothing written.
 */
export function updateWorkingMemoryTool(
  settings: WorkingMemorySettings,
  update: (owner: WorkingMemoryOwner, memory: string) => Promise<void>,
): MastraTool {
  return createTool({
    id: 'update-working-memory',
    description:
      settings.schema === undefined
        ? 'Rewrite your working memory with new information: pass the whole new content; what you leave out is removed.'
        : 'Update your working memory with new information: pass a JSON object with only the fields to add or change; it is merged into what is stored.',
    inputSchema: inputSchemaOf(settings) as never,
    execute: async (input: unknown, context) => {
      const memory = (input as { memory?: unknown } | null)?.memory
      const text = typeof memory === 'string' ? memory : JSON.stringify(memory ?? null)
      try {
        await update({ threadId: context?.agent?.threadId, resourceId: context?.agent?.resourceId }, text)
        return { success: true }
      } catch (error) {
        if (!StrataError.isInstance(error)) throw error
        return { error: { code: error.code, message: error.message } }
      }
    },
  }) as unknown as MastraTool
}
