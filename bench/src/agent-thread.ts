import type { JsonObject, MessageInput, Thread } from '@strata-memory/core'

/** The default ladder, which the workload uses. */
export type AgentThreadLevel = 'global' | 'project' | 'task'
export const LEVELS: readonly AgentThreadLevel[] = ['global', 'project', 'task']

/** One call of the thread API: appends are batched, scopes open and close one at a time. */
export type Operation =
  | { kind: 'append'; messages: MessageInput[] }
  | { kind: 'enter'; level: 'project' | 'task'; title: string }
  | { kind: 'exit' }

/** Items an operation writes: its messages, an opening item, or a transition and a scope summary. */
export const itemsWritten = (operation: Operation) =>
  operation.kind === 'append' ? operation.messages.length : operation.kind === 'enter' ? 1 : 2

const SHAPES = ['rect', 'ellipse', 'text', 'image', 'line']
const ALIGN = ['left', 'center', 'top', 'middle', 'distribute-x']

/** Builds the messages of one tool action: the assistant's call and the tool's result. */
function toolAction(id: string, toolName: string, input: JsonObject, output: JsonObject): MessageInput[] {
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName, input }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName, output }] },
  ]
}

/** A canvas action of a task, with inputs and results shaped like a real canvas tool's. */
function canvasAction(id: string, step: number): MessageInput[] {
  const x = (step * 97) % 1280
  const y = (step * 53) % 2400
  if (step % 5 === 3) {
    const ids = [`shape_${step - 3}`, `shape_${step - 2}`, `shape_${step - 1}`]
    const align = ALIGN[step % ALIGN.length]!
    return toolAction(
      id,
      'align_shapes',
      { ids, align },
      { align, moved: ids.map((shape) => ({ id: shape, x, y })) },
    )
  }
  if (step % 5 === 4) {
    const changes = {
      fill: `#${((step * 2_654_435) % 0xffffff).toString(16).padStart(6, '0')}`,
      radius: step % 24,
    }
    return toolAction(
      id,
      'update_shape',
      { id: `shape_${step - 1}`, changes },
      { id: `shape_${step - 1}`, updated: Object.keys(changes), bounds: { x, y, width: 240, height: 96 } },
    )
  }
  const type = SHAPES[step % SHAPES.length]!
  const shape = { name: `section-${step % 7}/element-${step}`, type, x, y, width: 240, height: 96 }
  return toolAction(
    id,
    'create_shape',
    type === 'text'
      ? { ...shape, text: 'Fresh bread every morning', fontSize: 18 }
      : { ...shape, fill: '#FFEFD9' },
    {
      id: `shape_${step}`,
      name: shape.name,
      type,
      layer: `layer_${step % 3}`,
      bounds: { x, y, width: 240, height: 96 },
    },
  )
}

/** A project-level action. */
function projectAction(id: string, step: number): MessageInput[] {
  switch (step % 4) {
    case 0:
      return toolAction(
        id,
        'create_layer',
        { name: `Section ${step}` },
        { layerId: `layer_${step}`, active: true },
      )
    case 1:
      return toolAction(id, 'set_grid', { columns: 12, gutter: 24, margin: 120 }, { columnWidth: 78 })
    case 2:
      return toolAction(
        id,
        'export_preview',
        { layer: `Section ${step - 2}`, format: 'png', scale: 1 },
        { url: `preview://canvas/section-${step - 2}.png`, width: 1440, height: 640 },
      )
    default:
      return toolAction(id, 'lock_layer', { name: `Section ${step - 3}` }, { locked: true, shapes: 12 })
  }
}

/**
 * Generates the operations of a thread of exactly `items` items, as an agent writes it: cycles of global
 * chat (with a web search) and a project of four tasks (12 to 28 canvas actions each, project actions
 * between them), then global chat to make up the count, then a last project left open inside its third
 * task of 20 actions. The tail is the same for every size, so the task and project views are the same
 * size whatever the length of the thread; only the global view grows with it.
 */
export function agentThreadOperations(items: number): Operation[] {
  let calls = 0
  const id = () => `call_${++calls}`
  let step = 0
  const task = (title: string, actions: number): Operation[] => [
    { kind: 'enter', level: 'task', title },
    {
      kind: 'append',
      messages: [
        ...Array.from({ length: actions }, () => canvasAction(id(), step++)).flat(),
        { role: 'assistant', content: `${title} is done: ${actions} canvas actions.` },
      ],
    },
    { kind: 'exit' },
  ]
  const projectActions = (count: number): Operation => ({
    kind: 'append',
    messages: Array.from({ length: count }, () => projectAction(id(), step++)).flat(),
  })
  const projectStart = (cycle: number): Operation[] => [
    { kind: 'enter', level: 'project', title: `Landing page ${cycle}` },
    {
      kind: 'append',
      messages: [
        { role: 'user', content: `Let's build landing page ${cycle}: header, hero and menu, brand palette.` },
        { role: 'assistant', content: 'I will set up the canvas and build it section by section.' },
        ...projectAction(id(), step++),
        ...projectAction(id(), step++),
        ...projectAction(id(), step++),
        ...projectAction(id(), step++),
      ],
    },
  ]
  const globalChat = (cycle: number): Operation => ({
    kind: 'append',
    messages: [
      { role: 'user', content: `Next up: a landing page for client ${cycle}. What do you need from me?` },
      {
        role: 'assistant',
        content: 'Their brand colours and the three sections they want. I will look them up.',
      },
      ...toolAction(
        id(),
        'web_search',
        { query: `client ${cycle} brand guidelines` },
        {
          results: [
            { title: `Client ${cycle} brand book`, url: `https://example.com/client-${cycle}/brand` },
          ],
        },
      ),
      { role: 'user', content: 'Great, go ahead.' },
      { role: 'assistant', content: 'Starting the project now.' },
    ],
  })
  const cycleOf = (cycle: number): Operation[] => [
    globalChat(cycle),
    ...projectStart(cycle),
    ...[0, 1, 2, 3].flatMap((index) => [
      ...(index > 0 ? [projectActions(2)] : []),
      ...task(`Section ${index + 1} of page ${cycle}`, 12 + ((cycle * 7 + index * 5) % 17)),
    ]),
    { kind: 'exit' },
  ]
  const tail = (): Operation[] => {
    const operations = [
      ...projectStart(0),
      ...task('Header bar', 20),
      ...task('Hero section', 20),
      projectActions(2),
    ]
    operations.push({ kind: 'enter', level: 'task', title: 'Menu cards' })
    operations.push({
      kind: 'append',
      messages: Array.from({ length: 20 }, () => canvasAction(id(), step++)).flat(),
    })
    return operations
  }

  const size = (operations: readonly Operation[]) =>
    operations.reduce((sum, operation) => sum + itemsWritten(operation), 0)
  const tailSize = size(tail())
  // Sizing the tail drew call ids; start again so the thread's ids are numbered from 1.
  calls = 0
  step = 0
  if (items < tailSize) throw new RangeError(`agentThreadOperations() needs at least ${tailSize} items.`)
  const operations: Operation[] = []
  let written = 0
  for (let cycle = 1; ; cycle++) {
    const next = cycleOf(cycle)
    const nextSize = size(next)
    if (written + nextSize + tailSize > items) break
    operations.push(...next)
    written += nextSize
  }
  const padding = items - written - tailSize
  if (padding > 0) {
    operations.push({
      kind: 'append',
      messages: Array.from({ length: padding }, (_, index) =>
        index % 2 === 0
          ? {
              role: 'user' as const,
              content: `Quick question ${index / 2 + 1}: can we reuse last week's palette?`,
            }
          : { role: 'assistant' as const, content: 'Yes, it is saved as "Acme brand" and ready to import.' },
      ),
    })
  }
  operations.push(...tail())
  return operations
}

/** Writes operations through the public thread API. */
export async function applyOperations(
  thread: Thread<AgentThreadLevel>,
  operations: readonly Operation[],
): Promise<void> {
  for (const operation of operations) {
    if (operation.kind === 'append') await thread.append(operation.messages)
    else if (operation.kind === 'enter') await thread.enter(operation.level, { title: operation.title })
    else await thread.exit({ outcome: 'complete' })
  }
}
