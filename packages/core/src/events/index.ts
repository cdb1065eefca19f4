export { createEventEmitter, type MemoryEventEmitter } from './event-emitter'
export type {
  ContextEvent,
  MemoryEventListener,
  MemoryEventName,
  MemoryEvents,
  TransitionEvent,
} from './memory-events'
