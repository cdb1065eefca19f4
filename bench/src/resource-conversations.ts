/**
 * A deterministic set of conversations of one user over 20 threads, with details planted in them
 * (names, numbers, preferences) and questions whose answer is a known thread and seq: the fixture of
 * `pnpm bench resource`'s recall@5.
 */

/** One message of a generated conversation. */
export interface ConversationMessage {
  role: 'user' | 'assistant'
  content: string
}

/** A question and where its answer was planted (the seq of the user message, 1-based in its thread). */
export interface PlantedQuestion {
  question: string
  threadId: string
  seq: number
  /** The planted value, which the answer message holds. */
  value: string
}

/** The generated conversations and their questions. */
export interface ResourceConversations {
  threads: { threadId: string; messages: ConversationMessage[] }[]
  questions: PlantedQuestion[]
}

/** mulberry32: a small seeded generator, the same numbers on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

const PEOPLE = [
  'Marta',
  'Jonas',
  'Priya',
  'Tomasz',
  'Ines',
  'Kenji',
  'Olga',
  'Rafael',
  'Sanna',
  'Dmitri',
  'Leila',
  'Bruno',
  'Hana',
  'Oskar',
  'Amara',
  'Felix',
  'Noor',
  'Pavel',
  'Greta',
  'Mateo',
  'Yusuf',
  'Clara',
  'Anders',
  'Lucia',
  'Ravi',
  'Elin',
  'Tariq',
  'Mira',
  'Viktor',
  'Zofia',
  'Emeka',
  'Ruth',
  'Hugo',
  'Aiko',
  'Stefan',
  'Nadia',
  'Joel',
  'Ingrid',
  'Omar',
  'Beatriz',
]
const CITIES = [
  'Porto',
  'Ghent',
  'Tampere',
  'Bologna',
  'Kraków',
  'Valencia',
  'Utrecht',
  'Graz',
  'Lyon',
  'Aarhus',
  'Brno',
  'Cork',
  'Seville',
  'Bergen',
  'Leipzig',
  'Turin',
  'Malmö',
  'Ljubljana',
  'Nantes',
  'Tallinn',
  'Basel',
  'Bilbao',
  'Riga',
  'Gdańsk',
  'Salzburg',
  'Lille',
  'Oulu',
  'Galway',
  'Split',
  'Vilnius',
  'Braga',
  'Dresden',
  'Verona',
  'Uppsala',
  'Zaragoza',
  'Leuven',
  'Linz',
  'Bordeaux',
  'Odense',
  'Tartu',
]
const RELATIONS = ['sister', 'brother', 'cousin', 'friend', 'colleague', 'neighbour', 'aunt', 'uncle']
const PROJECTS = [
  'kitchen renovation',
  'garden shed',
  'bathroom remodel',
  'wedding',
  'roof repair',
  'solar panels',
  'home office',
  'attic conversion',
  'birthday party',
  'garage door',
  'patio',
  'nursery',
  'fence',
  'basement insulation',
  'window replacement',
  'driveway',
  'sauna',
  'balcony',
  'staircase',
  'pool',
]
const ACCOUNTS = [
  'savings',
  'brokerage',
  'pension',
  'mortgage',
  'credit card',
  'checking',
  'utility',
  'insurance',
  'gym',
  'phone',
  'internet',
  'library',
  'airline',
  'hotel',
  'parking',
  'tax',
  'water',
  'electricity',
  'streaming',
  'payroll',
]
const VENDORS = [
  'Nordvik',
  'Halcyon',
  'Brightwell',
  'Corvid',
  'Ostara',
  'Lumen',
  'Quarry',
  'Tessel',
  'Marrow',
  'Ardent',
  'Fennel',
  'Kestrel',
  'Juniper',
  'Vantage',
  'Ember',
  'Pillar',
  'Sorrel',
  'Tundra',
  'Wicker',
  'Zephyr',
]
const EVENTS = [
  'anniversary',
  'graduation',
  'housewarming',
  'retirement',
  'engagement',
  'christening',
  'reunion',
  'farewell',
  'promotion',
  'midsummer',
  'thanksgiving',
  'hanukkah',
  'diwali',
  'easter',
  'new year',
  'solstice',
  'harvest',
  'jubilee',
  'launch',
  'homecoming',
]
const FOODS = ['mushrooms', 'cilantro', 'shellfish', 'peanuts', 'olives', 'eggplant', 'anchovies', 'tofu']
const SEATS = ['window', 'aisle', 'exit-row', 'front-row']
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday']
const MONTHS = ['January', 'March', 'April', 'June', 'August', 'October', 'November', 'December']

const pick = <T>(random: () => number, values: readonly T[]): T =>
  values[Math.floor(random() * values.length)]!
const number = (random: () => number, low: number, high: number) =>
  low + Math.floor(random() * (high - low + 1))

/** The details planted in thread `index`: the user's line, the question that asks for it, its value. */
function detailsOf(index: number, random: () => number) {
  const person = PEOPLE[index]!
  const friend = PEOPLE[index + 20]!
  const city = CITIES[index]!
  const destination = CITIES[index + 20]!
  const project = PROJECTS[index]!
  const account = ACCOUNTS[index]!
  const vendor = VENDORS[index]!
  const event = EVENTS[index]!
  const relation = pick(random, RELATIONS)
  const amount = `${number(random, 12, 95)}00`
  const digits = String(number(random, 1000, 9999))
  const time = `${number(random, 8, 17)}:${pick(random, ['00', '15', '30', '45'])}`
  const weekday = pick(random, WEEKDAYS)
  const food = pick(random, FOODS)
  const seat = pick(random, SEATS)
  const month = pick(random, MONTHS)
  return [
    {
      line: `Quick update: my ${relation} ${person} just moved to ${city} for a new job at the hospital.`,
      question: `Which city did ${person} move to?`,
      value: city,
    },
    {
      line: `For the ${project} we agreed on a hard budget of ${amount} euros, not a cent more.`,
      question: `How much money can we spend on the ${project}?`,
      value: amount,
    },
    {
      line: `My ${account} account number ends in ${digits}, in case the form asks for it.`,
      question: `What are the last digits of my ${account} account?`,
      value: digits,
    },
    {
      line: `The call with ${vendor} got moved to ${weekday} at ${time}, same video link as before.`,
      question: `When is the meeting with ${vendor} now?`,
      value: `${weekday} at ${time}`,
    },
    {
      line: `For the ${event} dinner please remember that I really can't eat ${food}.`,
      question: `What ingredient should the ${event} menu leave out?`,
      value: food,
    },
    {
      line: `When I fly to ${destination} I always prefer ${seat} seats, and ${friend} usually picks me up in ${month}.`,
      question: `Which seats do I like on flights to ${destination}?`,
      value: seat,
    },
  ]
}

/** Everyday requests that share words with the questions (city, budget, account, meeting, dinner, seats). */
const FILLERS: readonly ((random: () => number) => string)[] = [
  (random) => `Can you suggest a weekend trip from ${pick(random, CITIES)} that is not too expensive?`,
  (random) => `What is a sensible monthly budget for groceries for two people in ${pick(random, CITIES)}?`,
  () => 'How do I move money between accounts without paying a fee?',
  () => 'Write a short polite email asking to reschedule the meeting to next week.',
  (random) =>
    `Give me a vegetarian dinner recipe without ${pick(random, FOODS)} that takes under 30 minutes.`,
  () => 'Which seats on a long flight have the most legroom?',
  (random) => `Summarize the pros and cons of the ${pick(random, PROJECTS)} quotes I pasted earlier.`,
  () => 'What should I pack for a three day work trip in autumn?',
  () => 'Remind me how to split a restaurant bill fairly when some people did not drink.',
  (random) => `Draft a birthday message for ${pick(random, PEOPLE)}, something warm but short.`,
  () => 'How many days notice do I need to give before cancelling a gym membership?',
  () => 'Explain the difference between a fixed and a variable rate mortgage in plain words.',
  (random) => `Plan a ${pick(random, WEEKDAYS)} evening with friends, nothing fancy.`,
  () => 'What is the best way to keep track of receipts for the tax return?',
  () => 'Can you make the meeting notes from this morning into a short list of action items?',
]

const ANSWERS: readonly ((random: () => number) => string)[] = [
  () => 'Got it, I will keep that in mind.',
  () => 'Here is a short plan: first compare three options, then pick the one that fits your schedule.',
  () => 'Sure. A simple approach is to write it down once and reuse it whenever it comes up.',
  (random) => `Done. I drafted it in ${number(random, 3, 6)} short paragraphs; tell me what to change.`,
  () => 'Good question. It depends on the season, but booking two weeks ahead is usually enough.',
  () => 'Noted. Anything else you would like me to prepare for this?',
]

/** Turns of user request and assistant answer per thread (the 6 details take 6 of them). */
export const TURNS_PER_THREAD = 20
export const THREAD_COUNT = 20

/**
 * The conversations of one user: `THREAD_COUNT` threads (`chat-00`…) of `TURNS_PER_THREAD` turns each,
 * 6 details planted at random turns of each, and one question per detail (120 in all). The same
 * `seed` gives the same conversations and questions.
 */
export function resourceConversations(seed = 25): ResourceConversations {
  const random = seededRandom(seed)
  const threads: ResourceConversations['threads'] = []
  const questions: PlantedQuestion[] = []
  for (let index = 0; index < THREAD_COUNT; index++) {
    const threadId = `chat-${String(index).padStart(2, '0')}`
    const details = detailsOf(index, random)
    // The turns the details land on: distinct, in random order.
    const turns = Array.from({ length: TURNS_PER_THREAD }, (_, turn) => turn)
    for (let at = turns.length - 1; at > 0; at--) {
      const other = Math.floor(random() * (at + 1))
      ;[turns[at], turns[other]] = [turns[other]!, turns[at]!]
    }
    const detailAt = new Map(details.map((detail, position) => [turns[position]!, detail]))
    const messages: ConversationMessage[] = []
    for (let turn = 0; turn < TURNS_PER_THREAD; turn++) {
      const detail = detailAt.get(turn)
      const content = detail?.line ?? pick(random, FILLERS)(random)
      messages.push({ role: 'user', content })
      if (detail !== undefined)
        questions.push({ question: detail.question, threadId, seq: messages.length, value: detail.value })
      messages.push({ role: 'assistant', content: pick(random, ANSWERS)(random) })
    }
    threads.push({ threadId, messages })
  }
  return { threads, questions }
}
