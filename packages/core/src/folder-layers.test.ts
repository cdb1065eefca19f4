import { readdirSync, readFileSync } from 'node:fs'
import { posix } from 'node:path'
import { describe, expect, it } from 'vitest'

const source = new URL('./', import.meta.url)

/** Which folders each folder's production files import (tests aside), from the sources. */
function folderImports(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>()
  for (const file of readdirSync(source, { recursive: true, encoding: 'utf8' })) {
    const [folder, ...rest] = file.split(/[\\/]/)
    if (rest.length === 0 || !file.endsWith('.ts') || /\.test(-d)?\.ts$/.test(file)) continue
    const imports = graph.get(folder!) ?? new Set<string>()
    graph.set(folder!, imports)
    const text = readFileSync(new URL(file, source), 'utf8')
    const directory = posix.dirname(file.replaceAll('\\', '/'))
    for (const [, specifier] of text.matchAll(/from '(\.{1,2}\/[^']*)'/g)) {
      // Resolved against the importing file, so a policy's subfolder (compaction/budget/) counts too.
      const target = posix.normalize(posix.join(directory, specifier!)).split('/')[0]!
      if (target !== folder && !target.startsWith('..')) imports.add(target)
    }
  }
  return graph
}

/**
 * Inside compaction/: for each production file, as `folder/file.ts` or `file.ts` (a root file), the
 * files of compaction/ it imports, resolved the same way.
 */
function compactionImports(): Map<string, string[]> {
  const root = new URL('compaction/', source)
  const graph = new Map<string, string[]>()
  for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    const path = file.replaceAll('\\', '/')
    if (!path.endsWith('.ts') || /\.test(-d)?\.ts$/.test(path)) continue
    const text = readFileSync(new URL(path, root), 'utf8')
    const targets: string[] = []
    for (const [, specifier] of text.matchAll(/from '(\.{1,2}\/[^']*)'/g)) {
      const target = posix.normalize(posix.join(posix.dirname(path), specifier!))
      if (!target.startsWith('..')) targets.push(target)
    }
    graph.set(path, targets)
  }
  return graph
}

// dpdm (`pnpm check:circles`) finds circles between files; this finds them between folders, where a
// file-level graph without a circle can still show folders cut wrong (a lower folder reaching up).
describe('the folders of core', () => {
  const graph = folderImports()

  it('lower folders import only folders below them', () => {
    const below: Record<string, string[]> = {
      errors: [],
      items: ['errors'],
      levels: ['errors'],
      views: ['items', 'levels'],
    }
    for (const [folder, allowed] of Object.entries(below)) {
      expect(
        [...(graph.get(folder) ?? [])].filter((target) => !allowed.includes(target)),
        folder,
      ).toEqual([])
    }
  })

  // The thread's shared state (thread-state/) sits below the compaction policies that run on it and the
  // Thread facade (memory/) that wires them; it reads no compaction or memory module.
  it('the shared thread state imports neither the compaction policies nor the facade', () => {
    const reached = [...(graph.get('thread-state') ?? [])]
    expect(reached).not.toContain('compaction')
    expect(reached).not.toContain('memory')
    expect(graph.get('compaction')).toContain('thread-state')
  })

  // Each compaction policy lives in its own folder under compaction/ (auto-transition/, budget/,
  // waterfall/: its options, their resolver, its plans and its runner) and meets the thread through the
  // contract at compaction/'s root (compaction-policy.ts). The rule: a policy folder imports compaction/'s
  // root files but never another policy folder; the root files import no policy folder, except the one
  // registry (policy-registry.ts) that lists the built-in policies. So changing a policy stays in its
  // folder, and a new policy is a new folder and a line in the registry.
  describe('inside compaction/', () => {
    const files = compactionImports()
    const policyFolders = new Set(
      [...files.keys()].flatMap((path) => (path.includes('/') ? [path.split('/')[0]!] : [])),
    )
    /** The policy folder a file or an import (`./budget`, `./budget/budget-run`) is in, if any. */
    const policyFolder = (path: string) => {
      const first = path.split('/')[0]!
      return policyFolders.has(first) ? first : undefined
    }

    it('has a folder per built-in policy', () => {
      expect([...policyFolders].sort()).toEqual(['auto-transition', 'budget', 'waterfall'])
    })

    it('no policy folder imports another', () => {
      const crossings = [...files].flatMap(([path, targets]) => {
        const folder = policyFolder(path)
        if (folder === undefined) return []
        return targets
          .filter((target) => policyFolder(target) !== undefined && policyFolder(target) !== folder)
          .map((target) => `${path} → ${target}`)
      })
      expect(crossings).toEqual([])
    })

    it("only the registry among compaction/'s root files imports a policy folder", () => {
      const reaching = [...files].flatMap(([path, targets]) =>
        policyFolder(path) === undefined && targets.some((target) => policyFolder(target) !== undefined)
          ? [path]
          : [],
      )
      expect(reaching).toEqual(['policy-registry.ts'])
    })
  })

  // The adapter kit is a top layer over core's internals for the framework adapters: no folder of core
  // imports it, so core never depends on what an adapter needs; it reads no store-kit or testing module.
  it('the adapter kit sits on top: nothing in core imports it', () => {
    const importers = [...graph].filter(([, targets]) => targets.has('adapter-kit')).map(([folder]) => folder)
    expect(importers).toEqual([])
    const reached = [...(graph.get('adapter-kit') ?? [])]
    expect(reached).toEqual(expect.arrayContaining(['history', 'memory', 'items', 'content']))
    expect(reached).not.toContain('store-kit')
    expect(reached).not.toContain('testing')
  })

  it('no two folders import each other, directly or through others', () => {
    const circles: string[] = []
    const visit = (folder: string, path: string[]) => {
      for (const target of graph.get(folder) ?? []) {
        if (target === path[0]) circles.push([...path, target].join(' → '))
        else if (!path.includes(target) && target > path[0]!) visit(target, [...path, target])
      }
    }
    for (const folder of graph.keys()) visit(folder, [folder])
    expect(circles).toEqual([])
  })
})
