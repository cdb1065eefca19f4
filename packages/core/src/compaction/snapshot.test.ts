import { describe, expect, it } from 'vitest'
import { TestHistory } from '../testing/test-history'
import { renderSnapshot, snapshotTurns } from './snapshot'

describe('renderSnapshot', () => {
  it('renders the DESIGN format exactly', () => {
    const text = renderSnapshot({
      episodic: ['Set up the repo with pnpm.', 'Fixed the login bug.'],
      facts: ['The user is Ana', 'Deploys on Fridays'],
      recentTurns: [
        { turnId: 'turn_0012', user: 'Add a footer', assistant: 'Added it.' },
        { turnId: 'turn_0013', user: 'Thanks' },
      ],
    })
    expect(text).toBe(
      [
        '[MEMORY:EPISODIC]',
        '1) Set up the repo with pnpm.',
        '2) Fixed the login bug.',
        '[MEMORY:SEMANTIC]',
        '- The user is Ana',
        '- Deploys on Fridays',
        '[RECENT TURNS]',
        'Turn 12:',
        '  User: Add a footer',
        '  Assistant: Added it.',
        'Turn 13:',
        '  User: Thanks',
      ].join('\n'),
    )
  })

  it('shows the newest 3 episodic summaries and 20 facts', () => {
    const text = renderSnapshot({
      episodic: ['e1', 'e2', 'e3', 'e4', 'e5'],
      facts: Array.from({ length: 25 }, (_, index) => `f${index + 1}`),
      recentTurns: [],
    })
    const lines = text.split('\n')
    expect(lines.slice(0, 4)).toEqual(['[MEMORY:EPISODIC]', '1) e3', '2) e4', '3) e5'])
    expect(lines.slice(4)).toEqual([
      '[MEMORY:SEMANTIC]',
      ...Array.from({ length: 20 }, (_, i) => `- f${i + 6}`),
    ])
  })

  it('indents continuation lines and leaves out empty sections', () => {
    expect(
      renderSnapshot({
        episodic: [],
        facts: [],
        recentTurns: [{ turnId: 'turn_0002', assistant: 'Line one\nLine two\n' }],
      }),
    ).toBe('[RECENT TURNS]\nTurn 2:\n  Assistant: Line one\n    Line two')
    expect(renderSnapshot({ episodic: ['a\r\nb'], facts: [], recentTurns: [] })).toBe(
      '[MEMORY:EPISODIC]\n1) a\n   b',
    )
    expect(renderSnapshot({ episodic: [], facts: [], recentTurns: [] })).toBe('')
  })

  it('is deterministic', () => {
    const input = { episodic: ['x'], facts: ['y'], recentTurns: [{ turnId: 'custom', user: 'z' }] }
    expect(renderSnapshot(input)).toBe(renderSnapshot(structuredClone(input)))
    expect(renderSnapshot(input)).toContain('Turn custom:')
  })
})

describe('snapshotTurns', () => {
  it('takes the last turns: user and assistant text, tool calls by name, other items left out', () => {
    const history = new TestHistory()
    history.user('Plan the garden')
    history.assistant('On it.')
    history.user('Plant three trees')
    const call = history.call('plant')
    history.result(call)
    history.fact('The user has a garden')
    history.assistant('Planted.')
    history.user('Thanks')
    expect(snapshotTurns(history.items, 2)).toEqual([
      { turnId: 'turn_0002', user: 'Plant three trees', assistant: '[plant]\n\nPlanted.' },
      { turnId: 'turn_0003', user: 'Thanks' },
    ])
    expect(snapshotTurns(history.items, 10).map((turn) => turn.turnId)).toEqual([
      'turn_0001',
      'turn_0002',
      'turn_0003',
    ])
    expect(snapshotTurns(history.items, 0)).toEqual([])
  })
})
