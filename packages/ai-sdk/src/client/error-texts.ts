/**
 * What a person reads for each error a chat route can answer with: what happened and what to do, in
 * words for the people using the chat, not for its developers (the code stays beside it for the app).
 */
const TEXTS: Readonly<Record<string, string>> = {
  STRATA_THREAD_BUSY:
    'This chat is busy with another reply (in another tab or window). Wait until it has finished, then send again.',
  STRATA_SEQ_CONFLICT:
    'This chat has changed in another tab or window. Reload it to see the latest messages, then try again.',
  STRATA_INVALID_THREAD_ID: 'This chat’s address is not valid. Start a new chat.',
  STRATA_INVALID_MESSAGE: 'This message could not be added to the chat. Reload the chat and try again.',
  STRATA_INVALID_OPTIONS: 'The page sent a request the server could not read. Reload the page and try again.',
  STRATA_BUDGET_EXCEEDED: 'This message is too long for the model. Shorten it or split it, then send again.',
  STRATA_REWIND_UNSAFE:
    'That earlier reply can no longer be replaced: the older part of this chat has been summarized. Send a new message instead.',
  STRATA_SUMMARIZER_FAILED:
    'The server could not tidy up this chat’s memory just now. Try again in a moment.',
  NETWORK_ERROR: 'The server could not be reached. Check the connection and try again.',
}

/** The text for any other error. */
export const UNKNOWN_ERROR_TEXT = 'Something went wrong on the server. Try again in a moment.'

/** The text a person reads for an error code. */
export function errorText(code: string): string {
  return TEXTS[code] ?? UNKNOWN_ERROR_TEXT
}
