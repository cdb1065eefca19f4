import { createMemory, type StrataStore } from '@strata-memory/core'

/** The resource the CLI's resource tests read, and its threads, oldest first by last append. */
export const FIXTURE_RESOURCE = 'user-42'
export const FIXTURE_RESOURCE_THREADS = ['user-42.chat-1', 'user-42.chat-2', 'user-42.chat-3'] as const
/** Another user's thread that holds the same words: never in user-42's answers. */
export const OTHER_RESOURCE_THREAD = 'user-7.chat-1'

const CHATS: Record<string, string[][]> = {
  'user-42.chat-1': [
    ['My name is Ana and I live in Lyon.', 'Nice to meet you, Ana.'],
    ['I am vegetarian, please remember that.', 'Noted: vegetarian meals only.'],
    ['Thanks.', 'You are welcome.'],
  ],
  'user-42.chat-2': [
    ['Plan a dinner for Saturday with lentil soup.', 'Saturday dinner: lentil soup and bread.'],
    ['Add a dessert.', 'Pear tart for dessert.'],
    ['Thanks.', 'Enjoy the dinner.'],
  ],
  'user-42.chat-3': [
    ['Which train goes to Geneva on Monday?', 'The 08:15 TGV from Lyon Part-Dieu.'],
    ['Book a window seat.', 'Window seat 42 booked.'],
    ['Thanks.', 'Have a good trip.'],
  ],
  'user-7.chat-1': [
    ['I love a steak dinner on Saturday.', 'A steak dinner it is.'],
    ['My name is Bruno.', 'Hello Bruno.'],
    ['Thanks.', 'Any time.'],
  ],
}

/**
 * Writes {@link FIXTURE_RESOURCE}'s three threads (each tied to the resource, each compacted so its
 * facts are kept), its working memory (version 2) and one document, and a thread of another
 * resource (`user-7`) that holds the same kind of words. The threads' last appends are in the order
 * of {@link FIXTURE_RESOURCE_THREADS}, then the other user's.
 */
export async function writeFixtureResource(store: StrataStore): Promise<void> {
  // Ahead of the store's own clock, which stamps a thread's binding: the appends order the threads.
  let now = Date.now() + 3_600_000
  const memory = createMemory({
    store,
    clock: () => (now += 1_000),
    compaction: { budget: { inputTokens: 4_000, rawTailTurns: 1 } },
  })
  for (const [threadId, turns] of Object.entries(CHATS)) {
    const resource = threadId.split('.')[0]!
    const thread = await memory.thread(threadId, { resource })
    for (const [request, answer] of turns) {
      await thread.append({ role: 'user', content: request! })
      await thread.append({ role: 'assistant', content: answer! })
    }
    await thread.compact({ force: true })
  }
  const user = memory.resource(FIXTURE_RESOURCE)
  const first = await user.setWorkingMemory('Name: Ana\nDiet: vegetarian', { version: 0 })
  await user.setWorkingMemory('Name: Ana\nDiet: vegetarian\nCity: Lyon', { version: first.version })
  await user.putDocument([FIXTURE_RESOURCE, 'memories'], 'diet', { text: 'vegetarian' })
  await memory.settled()
}
