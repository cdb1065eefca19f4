import { handleStop } from '../../../../../lib/chat-handler'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** Stops the response running on a chat: the page's Stop (leaving the page lets it finish). */
export async function POST(
  _request: Request,
  { params }: { params: Promise<{ id: string }> },
): Promise<Response> {
  const { id } = await params
  return handleStop(id)
}
