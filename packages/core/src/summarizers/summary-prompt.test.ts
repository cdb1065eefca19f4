import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { Item, MessagePart } from '../items'
import { buildSummaryPrompt, MAX_RESULT_CHARS, parseSummaryResponse } from './summary-prompt'

const base = (seq: number) => ({ id: `i${seq}`, seq, ts: 1_000 + seq, level: 'task', turnId: 'turn_0001' })
const message = (seq: number, role: 'user' | 'assistant' | 'tool', content: MessagePart[]): Item => ({
  ...base(seq),
  type: 'message',
  role,
  content,
})

const longOutput = `Deployed api 4.2.1 to eu-west-1. ${'log line. '.repeat(120)}`

const history: Item[] = [
  {
    ...base(1),
    type: 'message',
    role: 'user',
    content: [{ type: 'text', text: 'Task: Deploy api\n\nShip build 4.2.1 to eu-west-1' }],
    scope: { title: 'Deploy api', instructions: 'Ship build 4.2.1 to eu-west-1' },
  },
  message(2, 'user', [{ type: 'text', text: 'Use the config at /etc/api/prod.yaml\nand tag it.' }]),
  message(3, 'assistant', [
    { type: 'text', text: 'Deploying.' },
    {
      type: 'tool-call',
      toolCallId: 'c1',
      toolName: 'deploy',
      input: { build: '4.2.1', region: 'eu-west-1' },
    },
  ]),
  message(4, 'tool', [{ type: 'tool-result', toolCallId: 'c1', toolName: 'deploy', output: longOutput }]),
  message(5, 'assistant', [{ type: 'tool-call', toolCallId: 'c2', toolName: 'tag', input: { name: 'v4' } }]),
  message(6, 'tool', [
    { type: 'tool-result', toolCallId: 'c2', toolName: 'tag', output: { code: 'E409' }, isError: true },
  ]),
  {
    ...base(7),
    level: 'project',
    type: 'transition',
    fromLevel: 'task',
    reason: 'task-complete',
    agentFacingMessage: '[ACTIONS]: <2 task actions filtered for brevity>',
    userFacingMessage: null,
    range: { fromSeq: 1, toSeq: 6 },
  },
  {
    ...base(8),
    type: 'summary',
    tier: 'scope',
    text: '2 tool calls: 1 deploy, 1 tag.',
    range: { fromSeq: 1, toSeq: 6 },
    salience: 0.5,
  },
  {
    ...base(9),
    type: 'fact',
    text: 'Prod runs in eu-west-1',
    tags: ['infra'],
    confidence: 0.9,
    salience: 0.5,
  },
]

describe('buildSummaryPrompt', () => {
  it('renders a fixed history with the tier, the scope and the previous summary', () => {
    const { system, prompt } = buildSummaryPrompt(history, {
      tier: 'short-term',
      previousSummary: '## Decisions\n- Use blue-green deploys',
      scope: { title: 'Deploy api', level: 'task', outcome: 'complete' },
      maxFacts: 5,
      maxResultChars: 40,
    })
    expect(prompt).toMatchInlineSnapshot(`
      "Write a short-term summary. These items have left the immediate window; the agent keeps working on them, so keep the detail the next turns may need.

      Scope: task "Deploy api", completed.

      Previous summary (build on it; keep what still holds):
      <previous-summary>
      ## Decisions
      - Use blue-green deploys
      </previous-summary>

      Log (9 items, oldest first; #n is the item's sequence number; tool results longer than 40 characters are truncated):
      <log>
      #1 user opened task scope "Deploy api"
        Ship build 4.2.1 to eu-west-1
      #2 user: Use the config at /etc/api/prod.yaml
        and tag it.
      #3 assistant: Deploying.
      #3 assistant: deploy({"build":"4.2.1","region":"eu-west-1"})
      #4 tool: deploy returned: Deployed api 4.2.1 to eu-west-1. log lin… [truncated 1193 characters]
      #5 assistant: tag({"name":"v4"})
      #6 tool: tag failed: {"code":"E409"}
      #7 task scope ended (task-complete): [ACTIONS]: <2 task actions filtered for brevity>
      #8 scope summary of #1-#6: 2 tool calls: 1 deploy, 1 tag.
      #9 fact: Prod runs in eu-west-1
      </log>

      Write the summary now, in the required format."
    `)
    expect(system).toMatchInlineSnapshot(`
      "You summarize part of an AI agent's conversation log for its memory. Your summary replaces the original items in the agent's context: what you leave out is lost to the agent.

      Rules:
      - Use only what the log and the previous summary say. Never invent decisions, identifiers, results or facts; when something is uncertain, say so.
      - Keep identifiers verbatim: ids, names, numbers, file paths, URLs, versions and error codes, exactly as written. Never shorten, round, translate or reformat them.
      - Be brief: short bullet points, no preamble, no closing remarks.
      - Answer in exactly this format, with these headings in this order; write "- none" under a heading with nothing to report:

      ## Decisions
      - what was decided or done, and why
      ## Identifiers
      - each id, name, number, path and URL that must survive verbatim
      ## Open work
      - what is unfinished, pending or failed, and what comes next
      \`\`\`json
      {"facts": [{"text": "one self-contained statement", "tags": ["topic"], "confidence": 0.9}]}
      \`\`\`

      Facts: at most 5 durable statements worth remembering after this summary (preferences, settled choices, stable properties of the work), each with short lowercase tags and a confidence from 0 to 1. Write {"facts": []} when there are none."
    `)
  })

  it('cuts long tool results with a marker and keeps calls whole', () => {
    const { prompt } = buildSummaryPrompt(history, { tier: 'scope' })
    const cut = `${longOutput.slice(0, MAX_RESULT_CHARS)}… [truncated ${longOutput.length - MAX_RESULT_CHARS} characters]`
    expect(prompt).toContain(`#4 tool: deploy returned: ${cut}\n#5`)
    expect(prompt).toContain('#3 assistant: deploy({"build":"4.2.1","region":"eu-west-1"})')
  })

  it('words each tier and asks for the default 8 facts', () => {
    const words = {
      scope: 'Write a scope summary.',
      'short-term': 'Write a short-term summary.',
      'long-term': 'Write a long-term summary.',
      episodic: 'Write an episodic summary.',
    } as const
    for (const [tier, opening] of Object.entries(words)) {
      const { system, prompt } = buildSummaryPrompt([], { tier: tier as keyof typeof words })
      expect(prompt.startsWith(opening)).toBe(true)
      expect(prompt).not.toContain('<previous-summary>')
      expect(system).toContain('Facts: at most 8 durable statements')
    }
  })

  it('lists the facts already in memory so they are not extracted again', () => {
    const { prompt } = buildSummaryPrompt(history, {
      tier: 'episodic',
      knownFacts: ['The user is Ana', ' ', 'Deploys run\non Fridays'],
    })
    expect(prompt).toContain(
      'Facts already in memory (do not list them again as facts; a fact that changed is a new fact):\n<known-facts>\n- The user is Ana\n- Deploys run\n  on Fridays\n</known-facts>\n\nLog (',
    )
    expect(buildSummaryPrompt(history, { tier: 'episodic', knownFacts: [] }).prompt).not.toContain(
      '<known-facts>',
    )
  })

  it('is deterministic: the same items give the same prompt', () => {
    const options = { tier: 'long-term' as const, previousSummary: 'before' }
    const first = buildSummaryPrompt(history, options)
    const second = buildSummaryPrompt(structuredClone(history), { ...options })
    expect(second).toEqual(first)
  })
})

const wellFormed = `## Decisions
- Deployed build 4.2.1 to eu-west-1
## Identifiers
- /etc/api/prod.yaml
- E409
## Open work
- Tagging failed with E409; retry
\`\`\`json
{"facts": [{"text": "Prod runs in eu-west-1", "tags": ["infra"], "confidence": 0.9}]}
\`\`\``

describe('parseSummaryResponse', () => {
  it('reads a well-formed answer: three sections kept, json block dropped, facts parsed', () => {
    expect(parseSummaryResponse(wellFormed)).toEqual({
      summary:
        '## Decisions\n- Deployed build 4.2.1 to eu-west-1\n\n## Identifiers\n- /etc/api/prod.yaml\n- E409\n\n## Open work\n- Tagging failed with E409; retry',
      facts: [{ text: 'Prod runs in eu-west-1', tags: ['infra'], confidence: 0.9 }],
    })
  })

  it('drops prose around the sections and accepts other heading styles', () => {
    const answer = `Sure! Here is the summary.\r\n\r\n**Decisions:**\r\n- Ship it\r\n\r\n### Identifiers\r\n- v4\r\n\r\nOpen work:\r\n- none\r\n\`\`\`json\r\n{"facts": []}\r\n\`\`\`\r\nLet me know if you need more.`
    expect(parseSummaryResponse(answer)).toEqual({
      summary: '## Decisions\n- Ship it\n\n## Identifiers\n- v4\n\n## Open work\n- none',
      facts: [],
    })
  })

  it('keeps the sections present and marks an empty one', () => {
    const { summary } = parseSummaryResponse('## Open work\n- retry tag v4\n\n## Decisions\n')
    expect(summary).toBe('## Decisions\n- none\n\n## Open work\n- retry tag v4')
  })

  it('keeps the summary when the facts json is malformed', () => {
    const answer = wellFormed.replace(/\{"facts".*\}/, '{"facts": [{"text": "x",}')
    const { summary, facts } = parseSummaryResponse(answer)
    expect(summary).toContain('## Identifiers\n- /etc/api/prod.yaml')
    expect(summary).not.toContain('facts')
    expect(facts).toEqual([])
  })

  it('validates facts: invalid entries dropped, confidence clamped, maxFacts applied', () => {
    const entries = [
      { text: '  A  ', tags: ['t', 3, ' u '], confidence: 1.7 },
      { text: 'B', confidence: -2 },
      { text: '' },
      { text: 'C', tags: 'infra' },
      { text: 'D', confidence: 'high' },
      'E',
      { text: 'F' },
    ]
    const answer = `## Decisions\n- x\n\`\`\`json\n${JSON.stringify({ facts: entries })}\n\`\`\``
    expect(parseSummaryResponse(answer).facts).toEqual([
      { text: 'A', tags: ['t', 'u'], confidence: 1 },
      { text: 'B', confidence: 0 },
      { text: 'F' },
    ])
    expect(parseSummaryResponse(answer, { maxFacts: 2 }).facts).toHaveLength(2)
  })

  it('keeps other code blocks inside a section', () => {
    const answer = `## Decisions\n- Run:\n\`\`\`sh\nmake deploy\n\`\`\`\n## Open work\n- none\n\`\`\`json\n{"facts": []}\n\`\`\``
    expect(parseSummaryResponse(answer).summary).toBe(
      '## Decisions\n- Run:\n```sh\nmake deploy\n```\n\n## Open work\n- none',
    )
  })

  it('keeps plain text with no sections as the summary', () => {
    expect(parseSummaryResponse('  Deployed 4.2.1; tagging failed.  ')).toEqual({
      summary: 'Deployed 4.2.1; tagging failed.',
      facts: [],
    })
  })

  it('throws STRATA_SUMMARIZER_FAILED for garbage', () => {
    for (const garbage of ['', '   \n ', '```json\n{"facts": []}\n```', '...\n---\n']) {
      let caught: unknown
      try {
        parseSummaryResponse(garbage)
      } catch (error) {
        caught = error
      }
      expect(StrataError.isInstance(caught, 'STRATA_SUMMARIZER_FAILED')).toBe(true)
      expect((caught as Error).message).toMatch(/no Decisions, Identifiers or Open work section/)
    }
  })
})
