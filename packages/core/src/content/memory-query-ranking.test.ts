import { beforeAll, describe, expect, it } from 'vitest'
import type { MessageInput } from '../items'
import { createMemory, type Thread } from '../memory'
import { scopeTools } from '../scopes'
import { inMemoryStore, type StrataStore } from '../stores'
import type { Summarizer } from '../summarizers'
import type { MemoryQueryHit, MemoryQueryOutput, MemoryToolError } from './memory-tool-types'
import { memoryTools } from './memory-tools'

/*
 * memory_query on a fixed, realistic thread: a finance lead's assistant over a few turns — purchase
 * orders from a tool, emails, two web pages large enough to be offloaded, a decision, a preference,
 * code, Japanese, Chinese and Korean text, a task scope, an archived turn with its summary and facts,
 * and the model's own memory_query and memory_retrieve calls. Each query names the one item a person
 * would want first.
 */

const ok = <T>(result: T | MemoryToolError): T => {
  if (typeof result === 'object' && result !== null && 'error' in result)
    throw new Error(result.error.message)
  return result as T
}

const call = (toolCallId: string, toolName: string, input: unknown): MessageInput => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId, toolName, input: input as never }],
})
const result = (toolCallId: string, toolName: string, output: unknown): MessageInput => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId, toolName, output: output as never }],
})

/** A web page of about `bytes`, its paragraphs cycling through `paragraphs`. */
function page(title: string, paragraphs: string[], bytes: number): string {
  const lines = [`# ${title}`, '']
  for (let index = 0; lines.join('\n').length < bytes; index++)
    lines.push(paragraphs[index % paragraphs.length]!, '')
  return lines.join('\n')
}

const VAT_PAGE = page(
  'VAT in the Digital Age (ViDA): e-invoicing across the EU',
  [
    'The ViDA package makes structured e-invoicing the default for intra-EU business-to-business supplies, with a digital reporting requirement phased in up to 2030.',
    'Member states may keep their national clearance systems. Portugal requires a unique document code, the ATCUD, printed on every invoice and a QR code since 2023.',
    'Invoices must follow the European standard EN 16931; paper invoices remain possible only where the buyer agrees.',
    'Businesses should review their invoicing software, their archiving rules and the retention period of ten years.',
  ],
  9_000,
)
const LEASE_PAGE = page(
  'Lisbon office market report, autumn',
  [
    'Prime office rents in Lisbon rose to 28 euros per square metre a month; Parque das Nações remains the most sought-after district.',
    'Tenants renewing a lease this year negotiated incentives of two to four rent-free months on average.',
    'Vacancy in the central business district fell below 5 percent, the lowest in a decade.',
  ],
  9_000,
)

const facts = [
  { text: "Dana's manager is Ines Carvalho, the CFO.", confidence: 0.9 },
  { text: 'The fiscal year of Korvo Labs ends on 31 March.', confidence: 0.9 },
]

/** Writes one summary and the facts above the first time compaction runs. */
const summarizer: Summarizer = {
  name: 'scripted',
  summarize: async () => ({
    summary: 'Dana introduced herself and her reply preferences; the assistant agreed.',
    facts,
  }),
}

let store: StrataStore
let thread: Thread
/** The id of each labelled item or content record. */
const ids = new Map<string, string>()
/** Ids that must never be a hit: the memory tools' own calls and results, the scope tools'. */
const echoes: string[] = []

const label = (name: string, id: string | undefined) => {
  if (id === undefined) throw new Error(`no id for ${name}`)
  ids.set(name, id)
}

async function append(name: string | undefined, messages: MessageInput | MessageInput[]) {
  const items = await thread.append(messages as MessageInput[])
  if (name !== undefined) label(name, items.at(-1)!.id)
  return items
}

async function buildThread() {
  store = inMemoryStore()
  let now = Date.UTC(2026, 9, 1)
  let counter = 0
  const memory = createMemory({
    store,
    summarizer,
    clock: () => (now += 60_000),
    generateId: () => `id${++counter}`,
    compaction: { budget: { maxOutputTokens: 1_000, rawTailTurns: 1 } },
  })
  thread = await memory.thread('finance')
  const tools = memoryTools(thread)
  const scopes = scopeTools(thread, { levels: memory.ladder.levels })

  // Turn 1, archived by compaction later: who the user is and how they want replies.
  await append('intro', {
    role: 'user',
    content:
      "Hi, I'm Dana Whitfield, finance lead at Korvo Labs. Please answer in British English and keep replies short.",
  })
  await append(undefined, { role: 'assistant', content: 'Noted, Dana.' })

  // Turn 2: purchase orders from a tool.
  await append(undefined, {
    role: 'user',
    content: 'Pull up the open purchase orders for the Lisbon office.',
  })
  const orders = [
    {
      po: 'PO-7001',
      vendor: 'Azul Print Lda',
      amount: 1240.5,
      currency: 'EUR',
      status: 'overdue',
      due: '2026-10-03',
    },
    {
      po: 'PO-7002',
      vendor: 'Northwind Traders',
      amount: 980,
      currency: 'EUR',
      status: 'paid',
      due: '2026-09-20',
    },
    {
      po: 'PO-7003',
      vendor: 'Lusa Office Supplies',
      amount: 15300,
      currency: 'EUR',
      status: 'pending approval',
      due: '2026-11-15',
    },
  ]
  for (const [index, order] of orders.entries()) {
    await append(undefined, call(`po${index}`, 'fetch_invoice', { po: order.po }))
    await append(order.po, result(`po${index}`, 'fetch_invoice', order))
  }
  await append(undefined, { role: 'assistant', content: 'Three open orders; one of them is late.' })

  // Turn 3: two emails.
  await append(undefined, { role: 'user', content: 'Read my two newest emails.' })
  await append(undefined, call('mail1', 'read_email', { folder: 'inbox', index: 0 }))
  await append(
    'auditEmail',
    result(
      'mail1',
      'read_email',
      'From: m.okafor@brightaudit.co.uk\nSubject: Q3 audit fieldwork dates\n\nDear Dana,\nour fieldwork will run from 12 to 16 October at your Lisbon office. Please have the fixed asset register and the bank reconciliations for September ready.\nKind regards, Maya Okafor',
    ),
  )
  await append(undefined, call('mail2', 'read_email', { folder: 'inbox', index: 1 }))
  await append(
    'vpnEmail',
    result(
      'mail2',
      'read_email',
      'From: it-helpdesk@korvolabs.com\nSubject: Your VPN certificate expires soon\n\nHello, the VPN certificate on your laptop expires on 30 November. Renew it from the self-service portal before then.',
    ),
  )
  await append(undefined, {
    role: 'assistant',
    content: 'An auditor asks for documents; IT asks you to renew something.',
  })

  // Turn 4: two web pages, offloaded to the content store.
  await append(undefined, {
    role: 'user',
    content: 'Find the EU rules on e-invoicing, and what office rents do in Lisbon.',
  })
  await append(undefined, call('web1', 'fetch_page', { url: 'https://tax.example.eu/vida' }))
  await append(undefined, result('web1', 'fetch_page', VAT_PAGE))
  await append(undefined, call('web2', 'fetch_page', { url: 'https://realestate.example.pt/lisbon-offices' }))
  await append(undefined, result('web2', 'fetch_page', LEASE_PAGE))
  for (const record of await store.queryContent('finance')) {
    label(record.meta?.toolCallId === 'web1' ? 'vatPage' : 'leasePage', record.id)
  }
  await append(undefined, { role: 'assistant', content: 'Both pages are read.' })

  // Turn 5: a decision and a preference.
  await append('paymentDecision', {
    role: 'user',
    content: 'Decision: from November we move the weekly payment run from Thursday to Tuesday.',
  })
  await append(undefined, { role: 'assistant', content: 'Understood, I will plan around it.' })
  await append('csvPref', { role: 'user', content: 'Send me spreadsheets as CSV files, never XLSX.' })
  // Turns 1 to 4 leave for the archive, with a summary and two facts.
  await thread.compact({ force: true })

  // Turn 6: the model's own memory tools, whose calls and results echo what memory holds.
  const queryInput = { text: 'PO-7001 vendor Azul overdue' }
  const [queryCall] = await append(undefined, call('mq1', 'memory_query', queryInput))
  const found = ok<MemoryQueryOutput>(await tools.memory_query.execute(queryInput))
  const [queryResult] = await append(undefined, result('mq1', 'memory_query', found))
  const [retrieveCall] = await append(undefined, call('mr1', 'memory_retrieve', { id: ids.get('PO-7001') }))
  const retrieved = await tools.memory_retrieve.execute({ id: ids.get('PO-7001') })
  const [retrieveResult] = await append(undefined, result('mr1', 'memory_retrieve', retrieved))
  echoes.push(queryCall!.id, queryResult!.id, retrieveCall!.id, retrieveResult!.id)

  // Turn 7: a task scope opened and closed by the scope tools, with code written inside it.
  await append(undefined, {
    role: 'user',
    content: 'Reconcile the October bank statement, then write the ATCUD parser.',
  })
  const enterInput = {
    level: 'task',
    title: 'Reconcile the bank statement',
    instructions: 'Match the October Millennium BCP statement against the general ledger.',
  }
  const [enterCall] = await append(undefined, call('sc1', 'enter_scope', enterInput))
  const entered = await scopes.enter_scope.execute(enterInput)
  const [enterResult] = await append(undefined, result('sc1', 'enter_scope', entered))
  // The opening the model sees: the scope tool's result at the broader level is followed by the
  // scope's opening again, worded as new, which is the one that stays in view (and ranks first: newest).
  label(
    'reconcileOpening',
    (await thread.items()).findLast((item) => item.type === 'message' && item.scope !== undefined)?.id,
  )
  await append('atcudCode', {
    role: 'assistant',
    content: [
      'Here is the parser:',
      '```ts',
      'export function parseAtcud(code: string): { validation: string; sequence: number } {',
      "  const [validation, sequence] = code.split('-')",
      '  return { validation: validation!, sequence: Number(sequence) }',
      '}',
      '```',
    ].join('\n'),
  })
  const exitInput = {
    outcome: 'complete',
    summary: 'Bank statement reconciled: 3 unmatched items totalling EUR 412.90, flagged to Rui for review.',
  }
  const [exitCall] = await append(undefined, call('sc2', 'exit_scope', exitInput))
  const exited = await scopes.exit_scope.execute(exitInput)
  const [exitResult] = await append(undefined, result('sc2', 'exit_scope', exited))
  echoes.push(enterCall!.id, enterResult!.id, exitCall!.id, exitResult!.id)

  // Turn 8: Japanese, Chinese and Korean.
  await append('tokyoJa', { role: 'user', content: '東京支社の請求書は来週までに送ってください。' })
  await append('shanghaiZh', { role: 'user', content: '上海办公室的租金合同明年三月到期。' })
  await append('seoulKo', { role: 'user', content: '서울 사무소 회의는 금요일 오후 3시입니다.' })
  await append(undefined, { role: 'assistant', content: 'Noted for Tokyo, Shanghai and Seoul.' })

  const items = [...(await store.readArchive('finance')), ...(await thread.items())]
  for (const item of items) {
    if (item.type === 'fact') label(item.text.startsWith('Dana') ? 'managerFact' : 'fiscalFact', item.id)
    if (item.type === 'transition' && item.fromLevel === 'task') label('reconcileTransition', item.id)
    if (item.type === 'summary' && item.tier === 'scope') label('reconcileSummary', item.id)
  }
}

const search = async (text: string, limit = 10): Promise<MemoryQueryHit[]> =>
  ok<MemoryQueryOutput>(await memoryTools(thread).memory_query.execute({ text, limit })).results

beforeAll(buildThread)

describe('memory_query ranking on a realistic thread', () => {
  const best: [query: string, expected: string | string[]][] = [
    ['PO-7001', 'PO-7001'],
    ['po 7001', 'PO-7001'],
    ['Azul Print', 'PO-7001'],
    ['overdue invoice', 'PO-7001'],
    ['2026-10-03', 'PO-7001'],
    ['Northwind', 'PO-7002'],
    ['15,300', 'PO-7003'],
    ['pending approval', 'PO-7003'],
    ['auditor fieldwork dates', 'auditEmail'],
    ['m.okafor@brightaudit.co.uk', 'auditEmail'],
    ['VPN certificate expiry', 'vpnEmail'],
    ['ATCUD requirement in Portugal', 'vatPage'],
    ['e-invoicing mandate 2030', 'vatPage'],
    ['office lease renewal rent-free months', 'leasePage'],
    ['parseAtcud function', 'atcudCode'],
    ['what did we decide about the payment run?', 'paymentDecision'],
    ['Tuesday payments', 'paymentDecision'],
    ['CSV or XLSX spreadsheets', 'csvPref'],
    ['Millennium BCP statement', 'reconcileOpening'],
    ['unmatched items Rui', ['reconcileTransition', 'reconcileSummary']],
    ['東京 請求書', 'tokyoJa'],
    ['上海租金', 'shanghaiZh'],
    ['서울 회의', 'seoulKo'],
    ["Who is Dana's manager", 'managerFact'],
    ['fiscal year end', 'fiscalFact'],
    ['British English short replies', 'intro'],
  ]

  it.each(best)('%s: the best item first', async (query, expected) => {
    const hits = await search(query)
    const [first] = hits
    const wanted = (Array.isArray(expected) ? expected : [expected]).map((name) => ids.get(name))
    expect(wanted).not.toContain(undefined)
    expect(wanted).toContain(first?.id)
  })

  it('never returns the memory or scope tools’ own calls and results', async () => {
    expect(echoes).toHaveLength(8)
    for (const [query] of best) {
      const hits = await search(query, 100)
      expect(hits.map((hit) => hit.id).filter((id) => echoes.includes(id))).toEqual([])
    }
    // The words of the model's own query are all in its call and result: still not a hit.
    const hits = await search('PO-7001 vendor Azul overdue', 100)
    expect(hits[0]!.id).toBe(ids.get('PO-7001'))
    expect(hits.some((hit) => hit.source === 'memory_query' || hit.source === 'memory_retrieve')).toBe(false)
  })

  it('shows a snippet where the query words meet, within about 160 characters', async () => {
    const [vat] = await search('ATCUD QR code')
    expect(vat!.id).toBe(ids.get('vatPage'))
    expect(vat!.snippet).toMatch(/ATCUD.*QR code|QR code.*ATCUD/)
    expect(vat!.snippet.length).toBeLessThanOrEqual(162)
    const [lease] = await search('rent-free months')
    expect(lease!.snippet).toContain('rent-free months')
    const [tokyo] = await search('請求書')
    expect(tokyo!.snippet).toContain('請求書')
  })

  it('keeps the filters: type, source, level and time narrow the ranked entries', async () => {
    const facts = ok<MemoryQueryOutput>(
      await memoryTools(thread).memory_query.execute({ text: 'Dana', type: 'fact' }),
    ).results
    expect(facts.map((hit) => hit.id)).toEqual([ids.get('managerFact')])
    const mails = ok<MemoryQueryOutput>(
      await memoryTools(thread).memory_query.execute({ text: 'Lisbon', source: 'read_email' }),
    ).results
    expect(mails.map((hit) => hit.id)).toEqual([ids.get('auditEmail')])
    const inTask = ok<MemoryQueryOutput>(
      await memoryTools(thread).memory_query.execute({ text: 'ATCUD', level: 'task' }),
    ).results
    expect(inTask[0]!.id).toBe(ids.get('atcudCode'))
    expect(inTask.every((hit) => hit.level === 'task')).toBe(true)
    const all = await search('Lisbon', 100)
    const newest = Math.max(...all.map((hit) => hit.ts))
    const recent = ok<MemoryQueryOutput>(
      await memoryTools(thread).memory_query.execute({ text: 'Lisbon', fromTs: newest }),
    ).results
    expect(recent.every((hit) => hit.ts >= newest)).toBe(true)
    expect(recent.length).toBeLessThan(all.length)
  })

  it('finds the archived turn and the facts compaction kept', async () => {
    const [intro] = await search('Korvo Labs finance lead')
    expect(intro).toMatchObject({ id: ids.get('intro'), where: 'archive' })
    const [fact] = await search('Ines Carvalho')
    expect(fact).toMatchObject({ id: ids.get('managerFact'), type: 'fact' })
  })
})
