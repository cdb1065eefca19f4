import { createClient, type RedisClientType } from 'redis'

/** A connected client for tests that gives up at once when the server is gone (never hangs a test). */
export async function connectTestClient(
  url: string,
  { name }: { name?: string } = {},
): Promise<RedisClientType> {
  const client: RedisClientType = createClient({ url, name, socket: { reconnectStrategy: false } })
  client.on('error', () => undefined)
  await client.connect()
  return client
}

/** Keys matching `pattern`, sorted. */
export async function keysMatching(client: RedisClientType, pattern: string): Promise<string[]> {
  const keys: string[] = []
  for await (const batch of client.scanIterator({ MATCH: pattern, COUNT: 1000 })) keys.push(...batch)
  return keys.sort()
}

/** Deletes the keys matching `pattern` and closes the client, so a shared REDIS_URL is left as found. */
export async function cleanUpAndClose(client: RedisClientType | undefined, pattern: string): Promise<void> {
  if (!client?.isOpen) return
  const keys = await keysMatching(client, pattern)
  if (keys.length > 0) await client.del(keys)
  await client.close()
}
