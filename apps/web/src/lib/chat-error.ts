import { type StrataErrorInfo, strataErrorFromResponse } from '@strata-memory/ai-sdk/client'

/** A failed chat request as the page shows it: `code` for the app, `message` for people. */
export type ChatError = StrataErrorInfo

/**
 * The code and message of a failed chat request, from what `useChat` reports (a refused request's
 * body, a stream error `CODE: text`, a network failure): `strataErrorFromResponse`, never raw JSON.
 */
export const chatErrorOf = (error: unknown): ChatError => strataErrorFromResponse(error)

/** Another tab or device is getting an answer in the chat: not a failure, the page waits and catches up. */
export const isBusy = (error: ChatError) => error.code === 'STRATA_THREAD_BUSY'

/** The page is behind the thread (another tab answered since it loaded): it catches up. */
export const isBehind = (error: ChatError) => error.code === 'STRATA_SEQ_CONFLICT'
