import { strataErrorResponse } from '@strata-memory/ai-sdk'
import { appMemory } from '../../../lib/memory'
import { listChats } from '../../../lib/thread-list'

export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

/** The app's threads, the most recent first. */
export async function GET(): Promise<Response> {
  try {
    return Response.json(
      { threads: await listChats(appMemory()) },
      { headers: { 'cache-control': 'no-store' } },
    )
  } catch (error) {
    return strataErrorResponse(error)
  }
}
