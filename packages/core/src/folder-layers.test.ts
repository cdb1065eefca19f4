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

  // The thread's shared state (thread/) sits below the compaction policies that run on it and the
  // Thread facade (memory/) that wires them; it reads no compaction or memory module.
  it('the shared thread state imports neither the compaction policies nor the facade', () => {
    const reached = [...(graph.get('thread') ?? [])]
    expect(reached).not.toContain('compaction')
    expect(reached).not.toContain('memory')
    expect(graph.get('compaction')).toContain('thread')
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
