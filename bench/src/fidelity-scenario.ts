import type { ModelMessage } from 'ai'
import { agentLoopEvents, type LoopEvent, PLANTED, type PlantedDetail } from './agent-loop-scenario.ts'

/**
 * One event of a fidelity run: a user request, a model call that answers in text, or a model call
 * that makes one tool call. The scope tools are tool calls like any other: the model opens and closes
 * its own scopes, mid-turn and at a turn's end, as an agent with `enter_scope`/`exit_scope` does.
 */
export type FidelityEvent =
  | { kind: 'request'; message: ModelMessage }
  | { kind: 'tool'; toolName: string; input: Record<string, unknown>; output?: unknown; thought: string }
  | { kind: 'answer'; text: string }

/** A scenario: its events and the details planted in it, which must stay reachable to the end. */
export interface FidelityScenario {
  name: string
  events: FidelityEvent[]
  planted: readonly PlantedDetail[]
}

/**
 * The agent-loop run (one request, a project of six tasks, ~170 tool steps with 2–6k-token pages),
 * with every scope opened and closed by the model through the scope tools instead of by the app.
 */
export function agentLoopScenario(): FidelityScenario {
  const events: FidelityEvent[] = agentLoopEvents().map((event: LoopEvent): FidelityEvent => {
    switch (event.kind) {
      case 'request':
        return event
      case 'enter':
        return {
          kind: 'tool',
          toolName: 'enter_scope',
          input: { level: event.level, title: event.title, instructions: event.instructions },
          thought: `Opening the ${event.level} "${event.title}".`,
        }
      case 'exit':
        return {
          kind: 'tool',
          toolName: 'exit_scope',
          input: { outcome: 'complete', summary: event.summary },
          thought: 'Closing this scope.',
        }
      case 'answer':
        return { kind: 'answer', text: 'Here is the report with one recommendation per area.' }
      default: {
        const [assistant, tool] = event.messages as unknown as [
          { content: { type: string; text?: string; toolName?: string; input?: unknown }[] },
          { content: { output: { type: string; value: unknown } }[] },
        ]
        const call = assistant.content.find((part) => part.type === 'tool-call')!
        const thought = assistant.content.find((part) => part.type === 'text')?.text ?? ''
        const output = tool.content[0]!.output
        return {
          kind: 'tool',
          toolName: call.toolName!,
          input: call.input as Record<string, unknown>,
          output: output.value,
          thought,
        }
      }
    }
  })
  return { name: 'agent-loop', events, planted: PLANTED }
}

/** Details the user states across the turns of the conversation scenario. */
const TURN_DETAILS: readonly (PlantedDetail & { sentence: string })[] = [
  {
    sentence: 'Our cost centre for this is CC-3318.',
    value: 'CC-3318',
    query: 'cost centre',
    source: 'request',
  },
  {
    sentence: 'Send the summary to Marit Elvestad, she runs finance.',
    value: 'Marit Elvestad',
    query: 'runs finance summary',
    source: 'request',
  },
  {
    sentence: 'We decided to drop the Lisbon warehouse from the plan.',
    value: 'Lisbon warehouse',
    query: 'decided to drop',
    source: 'request',
  },
  {
    sentence: 'I want amounts in euros with two decimals, never rounded.',
    value: 'two decimals',
    query: 'amounts in euros',
    source: 'request',
  },
  {
    sentence: 'The purchase order to check first is PO-88412.',
    value: 'PO-88412',
    query: 'purchase order check first',
    source: 'request',
  },
  {
    sentence: 'Our fiscal year ends on 31 March.',
    value: '31 March',
    query: 'fiscal year ends',
    source: 'request',
  },
]

const LEDGER_WORDS = (
  'ledger entry vendor invoice amount currency posted approved pending batch account period ' +
  'reconciliation note reference memo line quantity unit price discount tax'
).split(' ')

/** A deterministic JSON tool result of about `rows` ledger rows. */
function ledger(seed: number, rows: number): Record<string, unknown> {
  let state = seed
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return state / 2_147_483_648
  }
  return {
    quarter: `Q${1 + (seed % 4)}`,
    rows: Array.from({ length: rows }, (_, index) => ({
      line: index + 1,
      vendor: `Vendor ${Math.floor(next() * 90) + 10}`,
      amount: Math.round(next() * 1_000_000) / 100,
      memo: Array.from({ length: 6 }, () => LEDGER_WORDS[Math.floor(next() * LEDGER_WORDS.length)]).join(' '),
    })),
  }
}

/**
 * A conversation of several turns: each user request states one detail; the model opens a task with
 * `enter_scope` mid-turn, works through a few tool steps with JSON results of 1–5k tokens, closes the
 * task with `exit_scope` as the turn's last step or mid-turn (one more step follows), and answers.
 */
export function conversationScenario(turns = 12): FidelityScenario {
  const events: FidelityEvent[] = []
  for (let turn = 0; turn < turns; turn++) {
    const detail = TURN_DETAILS[turn % TURN_DETAILS.length]!
    const stated = turn < TURN_DETAILS.length ? ` ${detail.sentence}` : ''
    events.push({
      kind: 'request',
      message: {
        role: 'user',
        content: `Request ${turn + 1}: reconcile the ledger for quarter ${1 + (turn % 4)} and tell me what is off.${stated}`,
      },
    })
    // Every third turn the model looks something up before it opens the task.
    if (turn % 3 === 1) {
      events.push({
        kind: 'tool',
        toolName: 'list_quarters',
        input: {},
        output: { quarters: ['Q1', 'Q2', 'Q3', 'Q4'] },
        thought: 'Checking which quarters exist.',
      })
    }
    events.push({
      kind: 'tool',
      toolName: 'enter_scope',
      input: { level: 'task', title: `Reconcile ledger ${turn + 1}`, instructions: 'Find mismatches.' },
      thought: 'This needs a few steps: opening a task.',
    })
    const steps = 2 + (turn % 3)
    for (let step = 0; step < steps; step++) {
      events.push({
        kind: 'tool',
        toolName: 'fetch_ledger',
        input: { quarter: 1 + (turn % 4), page: step + 1 },
        output: ledger(turn * 10 + step + 1, 20 + ((turn * 7 + step * 13) % 60)),
        thought: `Reading ledger page ${step + 1}.`,
      })
    }
    events.push({
      kind: 'tool',
      toolName: 'exit_scope',
      input: { outcome: 'complete', summary: `Ledger ${turn + 1}: ${steps} pages read, 2 mismatches.` },
      thought: 'Done with this task.',
    })
    // Every other turn the scope closes mid-turn and one more step follows at the broader level;
    // otherwise exit_scope is the turn's last step before the answer.
    if (turn % 2 === 0) {
      events.push({
        kind: 'tool',
        toolName: 'take_note',
        input: { note: `Ledger ${turn + 1} reconciled.` },
        output: { saved: true },
        thought: 'Noting the outcome.',
      })
    }
    events.push({ kind: 'answer', text: `Quarter ${1 + (turn % 4)}: two mismatches, listed above.` })
  }
  return {
    name: 'conversation',
    events,
    planted: TURN_DETAILS.slice(0, Math.min(turns, TURN_DETAILS.length)).map(({ value, query, source }) => ({
      value,
      query,
      source,
    })),
  }
}
