export { createEventEmitter, type MemoryEventEmitter } from './event-emitter'
export type {
  CompactionEndEvent,
  CompactionStartEvent,
  CompactionTrigger,
  ContextEvent,
  MemoryEventListener,
  MemoryEventName,
  MemoryEvents,
  RewindEvent,
  TransitionEvent,
} from './memory-events'
