import type {
  StoreLeaseMethods,
  StoreResourceMethods,
  StoreSlotMethods,
  StrataStore,
} from '@strata-memory/core'
import type { StoreAuditMethods } from '@strata-memory/core/store-kit'
import { guardedCalls } from './call-deadline'
import { fileAudit } from './file-audit'
import { fileContent } from './file-content'
import { fileContext } from './file-context'
import { fileLease } from './file-lease'
import { fileLog } from './file-log'
import { fileResources } from './file-resources'
import { fileSlots } from './file-slots'
import { type FileStoreOptions, resolveFileStoreOptions } from './file-store-options'
import { fileThreads } from './file-threads'

/**
 * The JSONL file store: the embedded default. Every thread is a folder
 * `<dir>/agents/<threadId>/` holding `raw_traces.jsonl` (the active log, one item per line, the
 * source of truth), its archive (`archive/index.jsonl` naming parts of `archive/NNNNNN.jsonl`),
 * `state.json`, slots (`slot.<name>.json`, e.g. the log digest) and `content/<id>.json`, plus
 * readable mirrors (`episodic.jsonl`, `semantic.jsonl`, `summaries/recent-*.md`), and, for resources, the thread's binding (`resource.json`) and vectors
 * (`vectors.json`); a resource is a folder `<dir>/resources/<resourceId>/` (see `fileResources`).
 * Appends are whole lines, synced before they are acknowledged; archives append to the archive and
 * replace the active log by rename; a per-thread lock file and the seq check make several processes on
 * one folder safe. See the package README for the format.
 *
 * Built like the Redis store: a shared context (`fileContext`) and one module per part — the log
 * (`fileLog`), content (`fileContent`), threads (`fileThreads`), lease, resources and audit.
 *
 * @example
 * const memory = createMemory({ store: fileStore({ dir: './memory' }) })
 */
export function fileStore(
  options: FileStoreOptions = {},
): StrataStore & StoreLeaseMethods & StoreResourceMethods & StoreAuditMethods & StoreSlotMethods {
  const settings = resolveFileStoreOptions(options)
  const context = fileContext(settings)
  const { threadFiles, locked, lockedDirectory, durable, resourcesDirectory } = context
  const { fence, ...leaseMethods } = fileLease({ threadFiles, locked })
  const { forgetThread, ...resourceMethods } = fileResources({
    resourcesDirectory,
    threadFiles,
    lockedDirectory,
    durable,
  })

  return guardedCalls(
    {
      specificationVersion: 'v2',
      name: 'file',
      flags: { persistent: true, shared: true, leases: true, resources: true, audit: true, slots: true },
      ...leaseMethods,
      ...resourceMethods,
      ...fileLog(context, fence),
      ...fileContent(context),
      ...fileThreads(context, { fence, forgetThread }),
      ...fileSlots(context, { fence }),
      audit: fileAudit(context),
      async close(): Promise<void> {
        await context.close()
      },
    },
    settings.timeoutMs,
  )
}
