import { tool } from 'ai'
import { z } from 'zod'

/**
 * The app's own tool: the agent's editor. Files live in memory (the sample writes nothing to disk);
 * the result is the file as written, as an editor tool returns it, so a task's tool calls weigh what
 * they would in a real agent.
 */
export function agentTools() {
  return {
    write_file: tool({
      description: 'Writes a file of the project and returns it as written.',
      inputSchema: z.object({
        path: z.string().describe('The file path, e.g. src/hero/hero.html'),
        content: z.string().describe('The whole content of the file'),
      }),
      execute: async ({ path, content }) => ({
        path,
        bytes: new TextEncoder().encode(content).length,
        written: content,
      }),
    }),
  }
}
