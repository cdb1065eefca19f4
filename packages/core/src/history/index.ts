export {
  type ComparableMessage,
  HISTORY_MODES,
  type HistoryMode,
  messageFingerprint,
  readConversationTail,
  type UnseenMessagesOptions,
  type UnseenMessagesResult,
  unseenMessages,
} from './unseen-messages'
