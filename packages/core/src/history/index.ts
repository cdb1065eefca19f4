export {
  type ComparableMessage,
  type HistoryMode,
  messageFingerprint,
  readConversationTail,
  type UnseenMessagesOptions,
  type UnseenMessagesResult,
  unseenMessages,
} from './unseen-messages'
