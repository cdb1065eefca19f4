import type { ResourceQueryHit } from '@strata-memory/core'
import { CliError } from '../cli/cli-error'
import type { CommandContext } from '../cli/command-context'
import { shorten } from '../output/render-item'
import { table } from '../output/table'
import { checkThreadId } from '../store/open-store'
import { countOption, resourceOf } from './resource-command'

/** The widest snippet a table row shows (`--json` has them whole). */
const SNIPPET_WIDTH = 100

/**
 * `strata query --resource <id> <text…>`: ranked recall across the resource's threads (items,
 * archives, offloaded content, facts), best first, each hit with its thread, seq and a snippet.
 */
export async function queryCommand(
  context: CommandContext,
  words: readonly string[],
  options: { resource: string; limit?: string; threads?: string },
): Promise<number> {
  const text = words.join(' ').trim()
  if (text === '') throw new CliError('Say what to look for: strata query --resource <id> <text…>.')
  const resource = await resourceOf(context, options.resource)
  const limit = countOption(options.limit, '--limit', 10, 100)
  const threads = options.threads
    ?.split(',')
    .map((threadId) => threadId.trim())
    .filter((threadId) => threadId !== '')
  for (const threadId of threads ?? []) checkThreadId(threadId)
  const hits = await resource.query(text, { limit, ...(threads === undefined ? {} : { threads }) })
  context.output.result({ resourceId: options.resource, query: text, hits }, () =>
    renderHits(context, options.resource, text, hits),
  )
  return 0
}

function renderHits(
  context: CommandContext,
  resourceId: string,
  text: string,
  hits: readonly ResourceQueryHit[],
): string {
  const heading = context.output.colours.bold(
    `${hits.length} ${hits.length === 1 ? 'hit' : 'hits'} for "${text}" in resource ${resourceId}`,
  )
  if (hits.length === 0) return `${heading}\nNothing in its threads holds those words.`
  return [
    heading,
    table(
      ['#', 'score', 'thread', 'seq', 'kind', 'snippet'],
      hits.map((hit, index) => [
        index + 1,
        hit.score.toFixed(2),
        hit.threadId,
        hit.seq,
        hit.memoryId === undefined ? hit.kind : `${hit.kind} ${hit.memoryId}`,
        shorten(hit.snippet, SNIPPET_WIDTH),
      ]),
    ),
  ].join('\n')
}
