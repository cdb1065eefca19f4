import { tool } from 'ai'
import { z } from 'zod'

/**
 * The app's own tools: the agent's editor, and publishing, which a person approves on the page. Files live in memory (the sample writes nothing to disk);
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
    publish_site: tool({
      description: 'Publishes the project to the web. A person approves it first.',
      inputSchema: z.object({ target: z.string().describe('Where to publish: production or staging') }),
      // The page shows Approve / Deny; the call runs only once a person approved it.
      needsApproval: true,
      execute: async ({ target }) => ({ target, url: `https://${target}.acme-rockets.example` }),
    }),
  }
}
