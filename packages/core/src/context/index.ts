export type { ContextMessage, ContextStats } from './context-message'
export { type RenderContextInput, renderContext } from './render-context'
