import { appMemory } from '../../../lib/memory'
import { handlePanelGet, handlePanelPost } from '../../../lib/panel-handler'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** The panels' data: items, the context at a level, status. */
export async function GET(request: Request): Promise<Response> {
  return handlePanelGet(request, appMemory())
}

/** Controls: compact now. */
export async function POST(request: Request): Promise<Response> {
  return handlePanelPost(request, appMemory())
}
