export { isContextMemoryItem } from './context-memory-item'
export { levelView } from './level-view'
export { type ToolInteraction, toolInteractions } from './tool-interactions'
