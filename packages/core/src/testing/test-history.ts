import type { Item, MessageItem, MessagePart } from '../items'
import { isContextMemoryItem } from '../views'

/**
 * Builds seq-numbered histories for the compaction tests: a user message starts a turn, a tool
 * result keeps its call's turn and level (and may be delivered after later turns' items).
 */
export class TestHistory {
  readonly items: Item[] = []
  turn = 0
  level = 'global'
  #calls = new Map<string, { turnId: string; level: string }>()
  #callCounter = 0

  get turnId() {
    return `turn_${String(this.turn).padStart(4, '0')}`
  }

  #message(role: MessageItem['role'], content: MessagePart[], turnId = this.turnId, level = this.level) {
    const seq = this.items.length + 1
    const item: MessageItem = {
      id: `m${seq}`,
      seq,
      ts: seq * 1000,
      level,
      turnId,
      type: 'message',
      role,
      content,
    }
    this.items.push(item)
    return item
  }

  user(text = `question ${this.turn + 1}`) {
    this.turn++
    return this.#message('user', [{ type: 'text', text }])
  }

  assistant(text = 'answer') {
    return this.#message('assistant', [{ type: 'text', text }])
  }

  /** An assistant tool call; returns its id. */
  call(toolName = 'search') {
    const toolCallId = `call_${++this.#callCounter}`
    this.#calls.set(toolCallId, { turnId: this.turnId, level: this.level })
    this.#message('assistant', [{ type: 'tool-call', toolCallId, toolName, input: {} }])
    return toolCallId
  }

  result(toolCallId: string) {
    const origin = this.#calls.get(toolCallId)!
    return this.#message(
      'tool',
      [{ type: 'tool-result', toolCallId, toolName: 'search', output: 'ok' }],
      origin.turnId,
      origin.level,
    )
  }

  /** A scope's opening item: a user message at `level` that does not start a turn. */
  open(level: string, title = 'work') {
    this.level = level
    const item = this.#message('user', [{ type: 'text', text: title }])
    item.scope = { title }
    return item
  }

  fact(text = 'a fact') {
    const seq = this.items.length + 1
    this.items.push({
      id: `f${seq}`,
      seq,
      ts: seq * 1000,
      level: 'global',
      turnId: this.turnId,
      type: 'fact',
      text,
      tags: [],
      confidence: 0.5,
      salience: 0.5,
    })
  }

  /** A plain history: `turns` turns of user + assistant. */
  static plain(turns: number) {
    const history = new TestHistory()
    for (let turn = 0; turn < turns; turn++) {
      history.user()
      history.assistant()
    }
    return history
  }
}

/**
 * Every invariant a plan must keep, checked on the set of consumed seqs; returns the broken ones.
 * The current turn is the turn of the newest user message that starts a turn.
 */
export function brokenInvariants(items: readonly Item[], consumed: ReadonlySet<number>): string[] {
  const broken: string[] = []
  const history = items.filter((item) => !isContextMemoryItem(item))
  for (const item of items) {
    if (isContextMemoryItem(item) && consumed.has(item.seq)) broken.push(`memory item ${item.seq} consumed`)
  }
  const turns = new Map<string, Item[]>()
  for (const item of history) turns.set(item.turnId, [...(turns.get(item.turnId) ?? []), item])
  for (const [turnId, members] of turns) {
    const taken = members.filter((item) => consumed.has(item.seq)).length
    if (taken !== 0 && taken !== members.length) broken.push(`turn ${turnId} split`)
  }
  const current = history.findLast((item) => item.type === 'message' && item.role === 'user' && !item.scope)
  if (current && history.some((item) => item.turnId === current.turnId && consumed.has(item.seq)))
    broken.push('current turn consumed')
  const callSeqs = new Map<string, Item>()
  const resultSeqs = new Map<string, Item>()
  for (const item of history) {
    if (item.type !== 'message') continue
    for (const part of item.content) {
      if (part.type === 'tool-call') callSeqs.set(part.toolCallId, item)
      if (part.type === 'tool-result') resultSeqs.set(part.toolCallId, item)
    }
  }
  for (const [id, call] of callSeqs) {
    const result = resultSeqs.get(id)
    if (result === undefined) {
      if (history.some((item) => item.turnId === call.turnId && consumed.has(item.seq)))
        broken.push(`pending call ${id}'s turn consumed`)
    } else if (consumed.has(call.seq) !== consumed.has(result.seq)) {
      broken.push(`call ${id} separated from its result`)
    }
  }
  // Anything after a pending call's turn started must stay too.
  for (const [id, call] of callSeqs) {
    if (resultSeqs.has(id)) continue
    const start = history.find((item) => item.turnId === call.turnId)!.seq
    if ([...consumed].some((seq) => seq >= start)) broken.push(`consumed past pending call ${id}`)
  }
  return broken
}

/** One step of a random history; `result` delivers the `n`-th outstanding call (mod their count). */
export type HistoryCommand = { kind: 'user' | 'assistant' | 'call' | 'fact' } | { kind: 'result'; n: number }

/**
 * Plays commands into a history that starts with a user message. Results may come late (after other
 * turns' items) or never (a pending call).
 */
export function historyFromCommands(commands: readonly HistoryCommand[]): TestHistory {
  const history = new TestHistory()
  history.user()
  const outstanding: string[] = []
  for (const command of commands) {
    if (command.kind === 'user') history.user()
    else if (command.kind === 'assistant') history.assistant()
    else if (command.kind === 'call') outstanding.push(history.call())
    else if (command.kind === 'fact') history.fact()
    else if (command.kind === 'result' && outstanding.length > 0)
      history.result(outstanding.splice(command.n % outstanding.length, 1)[0]!)
  }
  return history
}
