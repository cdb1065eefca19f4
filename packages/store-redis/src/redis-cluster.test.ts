import { StrataError } from '@strata-memory/core'
import { describeStoreConformance, makeContentRecord, makeItems, withSeqs } from '@strata-memory/core/testing'
import { createClient, createCluster, type RedisClusterType } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redisStore } from './redis-store'
import { hashSlot } from './testing/hash-slot'
import { largeItems } from './testing/item-sizes'
import { type RedisClusterServers, redisCli, startRedisCluster } from './testing/redis-server'

let servers: RedisClusterServers
let cluster: RedisClusterType

beforeAll(async () => {
  servers = await startRedisCluster({ nodes: 3 })
  cluster = createCluster({
    rootNodes: servers.rootNodes,
    defaults: { socket: { reconnectStrategy: false } },
  })
  cluster.on('error', () => undefined)
  await cluster.connect()
}, 60_000)

afterAll(async () => {
  if (cluster?.isOpen) await cluster.close()
  await servers?.stop()
}, 30_000)

/** The port of the master serving `slot`, from `CLUSTER SLOTS`: [[start, end, [host, port, id], …], …]. */
async function ownerOf(slot: number): Promise<number> {
  const node = createClient({ url: servers.rootNodes[0]!.url, socket: { reconnectStrategy: false } })
  await node.connect()
  try {
    const ranges = (await node.sendCommand(['CLUSTER', 'SLOTS'])) as [number, number, [string, number]][]
    const range = ranges.find(([start, end]) => start <= slot && slot <= end)
    if (range === undefined) throw new Error(`no node serves slot ${slot}`)
    return Number(range[2][1])
  } finally {
    await node.close()
  }
}

const keySlot = async (key: string) =>
  Number((await redisCli(servers.ports[0]!, ['cluster', 'keyslot', key])).trim())

describeStoreConformance('redisStore on a three-node Redis Cluster', () =>
  redisStore({ client: cluster, prefix: 'strata-cluster-conformance' }),
)

describe('redisStore on Redis Cluster', () => {
  it('works for two threads whose keys live on different nodes', async () => {
    const prefix = 'strata-cluster'
    const store = redisStore({ client: cluster, prefix })
    // Pick two thread ids whose hash tags land on different masters.
    const owners = new Map<number, string>()
    for (let index = 0; owners.size < 2; index++) {
      const threadId = `thread-${index}`
      const owner = await ownerOf(await keySlot(`${prefix}:{${threadId}}:log`))
      if (!owners.has(owner)) owners.set(owner, threadId)
    }
    const threads = [...owners.entries()]

    for (const [port, threadId] of threads) {
      const items = makeItems(5)
      expect(await store.append(threadId, items, { expectedSeq: 0 })).toStrictEqual(withSeqs(items))
      expect(await store.archive(threadId, { seqs: [1, 2], expectedSeq: 5 })).toBe(2)
      expect(await store.read(threadId)).toStrictEqual(withSeqs(items).slice(2))
      expect(await store.readArchive(threadId)).toStrictEqual(withSeqs(items).slice(0, 2))
      const record = makeContentRecord({ id: 'mem_1' })
      await store.putContent(threadId, record)
      expect(await store.getContent(threadId, 'mem_1')).toStrictEqual(record)
      expect(await store.queryContent(threadId, { type: record.type })).toStrictEqual([record])
      await store.setState(threadId, { level: 'task', owner: port })
      expect(await store.getState(threadId)).toStrictEqual({ level: 'task', owner: port })
      expect(await store.head(threadId)).toEqual({ lastSeq: 5, activeCount: 3, archivedCount: 2 })

      // Every key of the thread is on one slot, served by the node found above.
      const family = ['log', 'archived', 'ids', 'content', 'state'].map(
        (name) => `${prefix}:{${threadId}}:${name}`,
      )
      const slots = await Promise.all(family.map(keySlot))
      expect(new Set(slots)).toEqual(new Set([hashSlot(family[0]!)]))
      expect(await redisCli(port, ['exists', ...family])).toBe('5\n')
    }
    expect(await store.listThreads()).toEqual(threads.map(([, threadId]) => threadId).sort())

    for (const [, threadId] of threads) await store.deleteThread(threadId)
    expect(await store.listThreads()).toEqual([])
  })

  it('appends large batches through the gate transaction on whichever node owns the thread', async () => {
    const prefix = 'strata-cluster-large'
    const store = redisStore({ client: cluster, prefix })
    const owners = new Map<number, string>()
    for (let index = 0; owners.size < 3; index++) {
      const threadId = `large-${index}`
      const owner = await ownerOf(await keySlot(`${prefix}:{${threadId}}:log`))
      if (!owners.has(owner)) owners.set(owner, threadId)
    }
    for (const threadId of owners.values()) {
      const first = largeItems(makeItems(3))
      const second = largeItems(makeItems(2))
      expect(await store.append(threadId, first, { expectedSeq: 0 })).toStrictEqual(withSeqs(first))
      expect(await store.append(threadId, second, { expectedSeq: 3 })).toStrictEqual(withSeqs(second, 3))
      // A re-send returns the stored items; a stale expectedSeq is a conflict.
      expect(await store.append(threadId, first, { expectedSeq: 0 })).toStrictEqual(withSeqs(first))
      const conflict = await store.append(threadId, largeItems(makeItems(2)), { expectedSeq: 3 }).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(StrataError.isInstance(conflict, 'STRATA_SEQ_CONFLICT')).toBe(true)
      expect(await store.archive(threadId, { seqs: [2, 4] })).toBe(2)
      expect(await store.read(threadId)).toStrictEqual(
        [...withSeqs(first), ...withSeqs(second, 3)].filter((item) => item.seq !== 2 && item.seq !== 4),
      )
      expect(await store.head(threadId)).toEqual({ lastSeq: 5, activeCount: 3, archivedCount: 2 })
      await store.deleteThread(threadId)
    }
  })

  it("keeps a resource's keys in the resource's slot and a thread's binding and vectors in the thread's, across nodes", async () => {
    const prefix = 'strata-cluster-resources'
    const store = redisStore({ client: cluster, prefix })
    // Two resources and a thread, each owned by a different master.
    const owners = new Map<number, string>()
    for (let index = 0; owners.size < 3; index++) {
      const id = `id-${index}`
      const owner = await ownerOf(await keySlot(`${prefix}:res:{${id}}:index`))
      if (!owners.has(owner)) owners.set(owner, id)
    }
    const [from, to, threadId] = [...owners.values()] as [string, string, string]
    const items = makeItems(2)
    await store.append(threadId, items, { expectedSeq: 0 })
    await store.touchResourceThread(from, threadId, 1_000)
    await store.setThreadResource(threadId, from, { expected: undefined })
    await store.setWorkingMemory(from, { notes: ['likes tea'] }, { expectedVersion: 0 })
    await store.putDocument(from, ['memories'], 'food', { likes: 'tea' })
    await store.putVectors(threadId, [{ id: 'item:1', model: 'm', vector: new Float32Array([0.5, -1]) }])

    const resourceFamily = ['index', 'times', 'working', 'documents'].map(
      (name) => `${prefix}:res:{${from}}:${name}`,
    )
    const resourceSlots = await Promise.all(resourceFamily.map(keySlot))
    expect(new Set(resourceSlots)).toEqual(new Set([hashSlot(resourceFamily[0]!)]))
    const fromPort = [...owners.entries()].find(([, id]) => id === from)![0]
    expect(await redisCli(fromPort, ['exists', ...resourceFamily])).toBe('4\n')
    const threadFamily = ['log', 'resource', 'vectors'].map((name) => `${prefix}:{${threadId}}:${name}`)
    expect(new Set(await Promise.all(threadFamily.map(keySlot)))).toEqual(
      new Set([hashSlot(threadFamily[0]!)]),
    )

    // A move touches both resources' nodes: the entry moves with its time.
    await store.setThreadResource(threadId, to, { expected: from })
    expect((await store.listResourceThreads(from)).threads).toEqual([])
    expect((await store.listResourceThreads(to)).threads).toEqual([{ threadId, lastAppendAt: 1_000 }])
    expect(await store.getThreadResource(threadId)).toBe(to)

    await store.deleteThread(threadId)
    expect(await store.listResourceThreads(to)).toEqual({ threads: [] })
    expect(await store.readVectors(threadId)).toEqual([])
    await store.deleteResource(from)
    await store.deleteResource(to)
    expect(await redisCli(fromPort, ['exists', ...resourceFamily])).toBe('0\n')
  })
})
