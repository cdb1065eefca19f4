import { handleResume } from '../../../../../lib/chat-handler'
import { appRuns } from '../../../../../lib/memory'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** The response streaming on a chat, replayed for a page that reloaded (`useChat({ resume: true })`). */
export async function GET(
  _request: Request,
  { params }: { params: Promise<{ id: string }> },
): Promise<Response> {
  const { id } = await params
  return handleResume(id, appRuns())
}
