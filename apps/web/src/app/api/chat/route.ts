import { after } from 'next/server'
import { handleChat, handleChatGet } from '../../../lib/chat-handler'
import { appMemory, appRuns } from '../../../lib/memory'
import { appModel } from '../../../lib/model'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** The chat: see lib/chat-handler.ts, the recipe this route runs. */
export async function POST(request: Request): Promise<Response> {
  const runs = appRuns()
  return handleChat(request, {
    memory: appMemory(),
    model: appModel(),
    waitUntil: (work) => after(work),
    ...(runs === undefined ? {} : { runs }),
  })
}

/** The chat as the thread holds it (`?id=THREAD`): what a page that fell behind reloads. */
export async function GET(request: Request): Promise<Response> {
  return handleChatGet(request, appMemory(), appRuns())
}
