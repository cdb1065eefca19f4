export { isContextMemoryItem } from './context-memory-item'
export { levelView } from './level-view'
export { keepRecentScopes } from './recent-scopes'
export { type ToolInteraction, toolInteractions } from './tool-interactions'
