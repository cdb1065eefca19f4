/**
 * `readActivePages` of a store whose wrapper guards each call (a deadline): the pages of `pages`,
 * each one fetched through `guard` as one call, so a stalled page fails as a stalled `read` would.
 */
export async function* guardedPages<T>(
  pages: AsyncIterable<T>,
  guard: (next: () => Promise<IteratorResult<T>>) => Promise<unknown>,
): AsyncGenerator<T> {
  const iterator = pages[Symbol.asyncIterator]()
  /** How the iteration ended, if it did: undefined while the reader may stop it early (no page is being read). */
  let ended: 'pages' | 'failure' | undefined
  try {
    for (;;) {
      let step: IteratorResult<T>
      try {
        step = (await guard(() => iterator.next())) as IteratorResult<T>
      } catch (error) {
        ended = 'failure'
        throw error
      }
      if (step.done === true) {
        ended = 'pages'
        return
      }
      yield step.value
    }
  } finally {
    // A reader that stops early ends the store's iteration too, so that the store's own clean-up runs
    // (a load waiting for its page to be taken, an open file). After a failed page (a deadline), the
    // store's read of it may still be under way: its iteration ends once that read settles, unawaited.
    if (ended === undefined) await iterator.return?.()
    else if (ended === 'failure') iterator.return?.()?.then(undefined, () => undefined)
  }
}

/**
 * `store` with each of its methods called through `guard` (a wrapper such as a deadline), and
 * `readActivePages` a page a call ({@link guardedPages}); the methods `skip` names stay as they are.
 */
export function guardedMethods<T extends object>(
  store: T,
  guard: (name: string, args: unknown[], run: () => unknown) => Promise<unknown>,
  skip: readonly string[] = [],
): T {
  const guarded: Record<string, unknown> = { ...(store as Record<string, unknown>) }
  for (const [name, value] of Object.entries(store)) {
    if (typeof value !== 'function' || skip.includes(name)) continue
    const method = value as (...args: unknown[]) => unknown
    guarded[name] =
      name === 'readActivePages'
        ? (...args: unknown[]) =>
            guardedPages(method.apply(store, args) as AsyncIterable<unknown>, (next) =>
              guard(name, args, next),
            )
        : (...args: unknown[]) => guard(name, args, () => method.apply(store, args))
  }
  return guarded as T
}
