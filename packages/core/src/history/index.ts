export {
  type ComparableMessage,
  HISTORY_MODES,
  type HistoryMode,
  messageFingerprint,
  notContinuing,
  readConversationTail,
  type UnseenMessagesOptions,
  type UnseenMessagesResult,
  unseenMessages,
} from './unseen-messages'
