import { isValidThreadId, type Resource, type ResourceFact, type VersionedValue } from '@strata-memory/core'
import { CliError } from '../cli/cli-error'
import type { CommandContext } from '../cli/command-context'
import { shorten } from '../output/render-item'
import { table } from '../output/table'
import { describeStoreTarget } from '../store/store-target'

/** One row of `strata resource`'s threads. */
export interface ResourceThreadRow {
  threadId: string
  /** The thread's last append, ISO 8601. */
  lastAppend: string
  /** Active and archived items. */
  items: number
}

/** Checks a resource id before anything reads it (resource ids follow the thread-id rule). */
export function checkResourceId(resourceId: string): void {
  if (isValidThreadId(resourceId)) return
  throw new CliError(
    `Bad resource id '${resourceId}': use 1–128 characters of A–Z a–z 0–9 _ . -, not starting with a dot (as thread ids).`,
  )
}

/** The resource of `resourceId` on the context's memory, its id checked. */
export async function resourceOf(context: CommandContext, resourceId: string): Promise<Resource> {
  checkResourceId(resourceId)
  return (await context.memory()).resource(resourceId)
}

/** A positive whole number option (`--limit`), or the usage error naming it. */
export function countOption(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback
  const count = Number(value)
  if (!Number.isInteger(count) || count < 1 || count > max)
    throw new CliError(`${name} must be a whole number from 1 to ${max}, not '${value}'.`)
  return count
}

/**
 * `strata resource <id>`: the resource's threads, newest first by last append (a page of `--limit`,
 * `--cursor` for the next), its working memory with its version, and the facts of all its threads.
 */
export async function resourceCommand(
  context: CommandContext,
  resourceId: string,
  options: { limit?: string; cursor?: string },
): Promise<number> {
  const resource = await resourceOf(context, resourceId)
  const limit = countOption(options.limit, '--limit', 50, 1000)
  const page = await resource.listThreads({
    limit,
    ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
  })
  const [workingMemory, facts] = await Promise.all([resource.getWorkingMemory(), resource.facts()])
  if (
    page.threads.length === 0 &&
    options.cursor === undefined &&
    workingMemory === undefined &&
    facts.length === 0 &&
    (await resource.listNamespaces({ limit: 1 })).length === 0
  ) {
    const where = describeStoreTarget((await context.store()).target)
    throw new CliError(
      `Resource '${resourceId}' not found in ${where}: it has no threads, working memory or documents (a thread joins one with memory.thread(id, { resource })).`,
    )
  }
  const { store } = await context.store()
  const threads: ResourceThreadRow[] = await Promise.all(
    page.threads.map(async ({ threadId, lastAppendAt }) => {
      const head = await store.head(threadId)
      return {
        threadId,
        lastAppend: new Date(lastAppendAt).toISOString(),
        items: head.activeCount + head.archivedCount,
      }
    }),
  )
  const data = {
    resourceId,
    threads,
    ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
    workingMemory: workingMemory ?? null,
    facts,
  }
  context.output.result(data, () => renderResource(context, data))
  if (page.cursor !== undefined && !context.output.json)
    context.output.note(`More threads: strata resource ${resourceId} --cursor ${page.cursor}`)
  return 0
}

function renderResource(
  context: CommandContext,
  data: {
    resourceId: string
    threads: ResourceThreadRow[]
    cursor?: string
    workingMemory: VersionedValue | null
    facts: ResourceFact[]
  },
): string {
  const { colours } = context.output
  const { threads, workingMemory, facts } = data
  const lines = [
    `${colours.bold('Resource')} ${data.resourceId}`,
    '',
    `${colours.bold('Threads')} ${threads.length === 0 ? 'none' : `${threads.length}${data.cursor === undefined ? '' : '+'}, newest first`}`,
  ]
  if (threads.length > 0)
    lines.push(
      table(
        ['thread', 'items', 'last append'],
        threads.map((row) => [row.threadId, row.items, row.lastAppend]),
      ),
    )
  lines.push('', `${colours.bold('Working memory')} ${workingMemoryHeading(workingMemory)}`)
  if (workingMemory !== null) lines.push(indent(workingMemoryText(workingMemory)))
  lines.push('', `${colours.bold('Facts')} ${facts.length === 0 ? 'none' : facts.length}`)
  for (const fact of facts) {
    const where = fact.sources.map((source) => `${source.threadId}#${source.seq}`).join(', ')
    lines.push(`  - ${shorten(fact.text)} ${colours.dim(`(${where})`)}`)
  }
  return lines.join('\n')
}

function workingMemoryHeading(stored: VersionedValue | null): string {
  if (stored === null) return 'none'
  return `version ${stored.version}, written ${new Date(stored.updatedAt).toISOString()}`
}

/** Text as written; JSON pretty-printed. */
function workingMemoryText(stored: VersionedValue): string {
  return typeof stored.value === 'string' ? stored.value : JSON.stringify(stored.value, null, 2)
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n')
}
