/** Runs a function in the async context captured earlier. */
export type InCallContext = <R>(fn: () => R) => R

interface AsyncLocalStorageClass {
  snapshot?: () => InCallContext
}

const runAsItIs: InCallContext = (fn) => fn()

/**
 * `AsyncLocalStorage` where the runtime has one: Node's (through `process.getBuiltinModule`, so no
 * `node:` import keeps the adapter out of edge runtimes), or the global one edge runtimes give.
 */
function asyncLocalStorage(): AsyncLocalStorageClass | undefined {
  const runtime = globalThis as {
    process?: {
      getBuiltinModule?: (id: string) => { AsyncLocalStorage?: AsyncLocalStorageClass } | undefined
    }
    AsyncLocalStorage?: AsyncLocalStorageClass
  }
  return (
    runtime.process?.getBuiltinModule?.('node:async_hooks')?.AsyncLocalStorage ?? runtime.AsyncLocalStorage
  )
}

const storage = asyncLocalStorage()

/**
 * The async context of the model call, to run later work in: a streamed answer is stored when the
 * stream ends, after the SDK's model-call context has been left, and the spans of that work (and
 * anything else a framework keeps in AsyncLocalStorage) belong to the call. Where the runtime has no
 * `AsyncLocalStorage.snapshot`, the work runs as it is.
 */
export function captureCallContext(): InCallContext {
  return storage?.snapshot?.() ?? runAsItIs
}
