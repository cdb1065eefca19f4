import { basename, dirname, join } from 'node:path'
import { deadlinePassed, enterLockedWork } from './call-deadline'
import type { ResolvedFileStoreOptions } from './file-store-options'
import { withThreadLock } from './thread-lock'

/**
 * The store's cross-process lock of a folder: a thread's, or a resource's (`resources/<id>/`). A stale
 * lock recovered is reported through `onEvent` (`lock-recovered`), naming what the folder holds.
 */
export function directoryLocks(settings: ResolvedFileStoreOptions, resourcesDirectory: string) {
  return <T>(directory: string, action: () => Promise<T>): Promise<T> => {
    const id = basename(directory)
    const what = dirname(directory) === resourcesDirectory ? 'resource' : 'thread'
    return withThreadLock(
      directory,
      {
        timeoutMs: settings.lockTimeoutMs,
        // The call's own deadline (timeoutMs) passed: stop waiting, its caller was told.
        givenUp: deadlinePassed,
        staleMs: settings.staleLockMs,
        onRecovered: (holder, reason) =>
          settings.onEvent({
            type: 'lock-recovered',
            threadId: id,
            lockFile: join(directory, '.lock'),
            holder,
            reason,
            message: `Recovered the stale lock of ${what} '${id}' (${reason === 'holder-dead' ? `its holder, pid ${holder?.pid}, is gone` : `older than ${settings.staleLockMs} ms`}).`,
          }),
      },
      () => {
        enterLockedWork()
        return action()
      },
    )
  }
}
