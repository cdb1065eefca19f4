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
  STRATA_THREAD_LOST: 'This chat’s history was lost on the server, so it cannot go on. Start a new chat.',
  STRATA_STORE_FAILED: 'The server cannot reach its memory just now. Try again in a moment.',
  NETWORK_ERROR: 'The server could not be reached. Check the connection and try again.',
}

/** Where an error's `details.reason` tells more than its code: the text for that reason. */
const REASON_TEXTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // An older message, or the last one of a page behind the chat: the request cannot tell which.
  STRATA_SEQ_CONFLICT: {
    'not-last-answer':
      'Only the last reply can be generated again. If this chat has changed in another tab or window, reload it to see the latest messages.',
    'not-last-message':
      'Only the last message can be edited. If this chat has changed in another tab or window, reload it to see the latest messages.',
  },
  STRATA_REWIND_UNSAFE: {
    'scope-changed':
      'That reply can no longer be replaced: it started or finished a part of the work that later steps build on. Send a new message instead.',
    'tool-call-split':
      'That reply can no longer be replaced: a tool it called is still part of what follows. Send a new message instead.',
  },
}

/** The text for any other error. */
export const UNKNOWN_ERROR_TEXT = 'Something went wrong on the server. Try again in a moment.'

/** The text a person reads for an error code (and its `details.reason`, where that says more). */
export function errorText(code: string, reason?: unknown): string {
  const byReason = typeof reason === 'string' ? REASON_TEXTS[code]?.[reason] : undefined
  return byReason ?? TEXTS[code] ?? UNKNOWN_ERROR_TEXT
}
