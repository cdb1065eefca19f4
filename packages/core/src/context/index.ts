export type { ContextMessage, ContextMessageKind, ContextStats } from './context-message'
export { type RenderContextInput, renderContext } from './render-context'
