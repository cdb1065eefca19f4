import { strataErrorResponse } from '@strata-memory/ai-sdk'
import type { Memory } from '@strata-memory/core'
import { panelData } from './panel-data'

const badRequest = (message: string) =>
  Response.json({ error: { code: 'BAD_REQUEST', message } }, { status: 400 })

/** GET /api/memory?thread=ID&level=LEVEL: the panels' data (level: the context to preview). */
export async function handlePanelGet(request: Request, memory: Memory): Promise<Response> {
  const url = new URL(request.url)
  const threadId = url.searchParams.get('thread')
  if (threadId === null) return badRequest('Name the thread: /api/memory?thread=ID.')
  const level = url.searchParams.get('level') ?? undefined
  if (level !== undefined && !memory.ladder.levels.includes(level)) {
    return badRequest(`Unknown level "${level}": one of ${memory.ladder.levels.join(', ')}.`)
  }
  try {
    return Response.json(await panelData(memory, threadId, level), {
      headers: { 'cache-control': 'no-store' },
    })
  } catch (error) {
    return strataErrorResponse(error)
  }
}

/** POST /api/memory { thread, action: 'compact' }: compacts the thread now (forced). */
export async function handlePanelPost(request: Request, memory: Memory): Promise<Response> {
  let body: { thread?: unknown; action?: unknown }
  try {
    body = (await request.json()) as typeof body
  } catch {
    return badRequest('The request body is not JSON: send { thread, action: "compact" }.')
  }
  if (typeof body?.thread !== 'string') return badRequest('The request body needs "thread": the thread id.')
  if (body.action !== 'compact') return badRequest('Unknown action: the one action is "compact".')
  try {
    const thread = await memory.thread(body.thread)
    await thread.compact({ force: true })
    return Response.json(await panelData(memory, body.thread))
  } catch (error) {
    return strataErrorResponse(error)
  }
}
