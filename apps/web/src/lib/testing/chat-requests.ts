import { readUIMessageStream, type UIMessageChunk } from 'ai'
import type { AppUIMessage } from '../app-ui-message'

/** A POST to /api/chat with a JSON body (a string is sent as it is). */
export const post = (body: unknown, init: RequestInit = {}) =>
  new Request('http://localhost/api/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  })

/** A user message as useChat sends it. */
export const user = (id: string, text: string): AppUIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
})

/**
 * The route's UI message stream (SSE) read back into the assistant message, as useChat does: a new
 * one, or `from`, the page's last answer the stream continues (after a tool approval).
 */
export async function readAnswer(response: Response, from?: AppUIMessage): Promise<AppUIMessage> {
  const chunks = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TransformStream<string, UIMessageChunk>({
      transform(text, controller) {
        for (const line of text.split('\n')) {
          if (!line.startsWith('data: ') || line === 'data: [DONE]') continue
          controller.enqueue(JSON.parse(line.slice(6)) as UIMessageChunk)
        }
      },
    }),
  )
  let last: AppUIMessage | undefined
  for await (const message of readUIMessageStream<AppUIMessage>({
    stream: chunks,
    ...(from === undefined ? {} : { message: structuredClone(from) }),
  }))
    last = message
  return last!
}

/**
 * The `{ error: { code, message, details } }` body of a refused request: `message` for people,
 * `details.developerMessage` for developers (Strata's own message), when the route sent one.
 */
export const errorOf = async (response: Response) =>
  (
    (await response.json()) as {
      error: { code: string; message: string; details?: { developerMessage?: string } }
    }
  ).error
