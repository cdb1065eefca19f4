/**
 * What the scripted agent builds: a small landing page in three parts. Each part is one task the agent
 * opens with `enter_scope`, works with `write_file` calls and closes with `exit_scope` and a summary.
 */

/** One `write_file` call of a task. */
export interface FileStep {
  path: string
  /** What the file is for: the agent writes it into the file's content. */
  purpose: string
}

/** One part of the project: a task. */
export interface TaskPlan {
  title: string
  instructions: string
  steps: FileStep[]
  /** What the agent says when it closes the task: the summary that stands in for its tool calls. */
  summary: string
}

export const PROJECT = {
  title: 'Landing page for Acme Rockets',
  instructions:
    'Build the landing page in three parts: the hero, the pricing section, the footer. Open a task for each part, close it with a summary of what was built.',
  announcement: 'I will plan this as a project of three parts and work through them one task at a time.',
  report:
    'The landing page is built: hero, pricing and footer are in src/, each part summarised in the timeline.',
}

export const TASKS: TaskPlan[] = [
  {
    title: 'Hero section',
    instructions: 'Headline, sub-headline, call to action and the launch illustration.',
    steps: [
      { path: 'src/hero/hero.html', purpose: 'the hero markup with headline and call to action' },
      { path: 'src/hero/hero.css', purpose: 'the hero layout on a 12-column grid' },
      { path: 'src/hero/rocket.svg', purpose: 'the launch illustration' },
      { path: 'src/hero/cta.ts', purpose: 'the call-to-action click handler' },
      { path: 'src/hero/copy.json', purpose: 'the headline and sub-headline copy' },
      { path: 'src/hero/hero.test.ts', purpose: 'a check that the call to action links to /signup' },
    ],
    summary:
      'Hero done: src/hero/ holds hero.html (headline "Reach orbit for less", CTA to /signup), hero.css, rocket.svg, cta.ts, copy.json and a test.',
  },
  {
    title: 'Pricing section',
    instructions: 'Three plans (Starter 19 USD, Team 49 USD, Fleet 199 USD) in cards, yearly toggle.',
    steps: [
      { path: 'src/pricing/pricing.html', purpose: 'the three plan cards' },
      { path: 'src/pricing/pricing.css', purpose: 'the card grid and the highlighted Team plan' },
      { path: 'src/pricing/plans.json', purpose: 'Starter 19 USD, Team 49 USD, Fleet 199 USD' },
      { path: 'src/pricing/toggle.ts', purpose: 'the monthly and yearly toggle' },
      { path: 'src/pricing/faq.html', purpose: 'four questions about billing' },
      { path: 'src/pricing/pricing.test.ts', purpose: 'a check that yearly prices are 10 months' },
    ],
    summary:
      'Pricing done: src/pricing/ holds the cards (Starter 19 USD, Team 49 USD highlighted, Fleet 199 USD), a yearly toggle at 10 months, a billing FAQ and a test.',
  },
  {
    title: 'Footer',
    instructions: 'Links, newsletter form and the legal line.',
    steps: [
      { path: 'src/footer/footer.html', purpose: 'the link columns' },
      { path: 'src/footer/footer.css', purpose: 'the dark footer layout' },
      { path: 'src/footer/newsletter.ts', purpose: 'the newsletter form posting to /api/newsletter' },
      { path: 'src/footer/legal.html', purpose: 'the legal line and the imprint link' },
    ],
    summary:
      'Footer done: src/footer/ holds the link columns, a dark layout, the newsletter form posting to /api/newsletter and the legal line.',
  },
]

/** The system prompt of every call. */
export const SYSTEM_PROMPT =
  'You are a web developer agent. Plan work as a project, open a task per part with enter_scope, write files with write_file, and close each task with exit_scope and a summary.'

/** The content `write_file` gets for a step: a file of a realistic size, deterministic. */
export function fileContent(task: TaskPlan, step: FileStep): string {
  const lines = [`/* ${step.path}: ${step.purpose} (${task.title}) */`]
  for (let line = 1; line <= 24; line++) {
    lines.push(
      `/* ${String(line).padStart(2, '0')} */ .${task.title.toLowerCase().replace(/\W+/g, '-')}-${line} { grid-column: ${(line % 12) + 1} / span 2; margin: ${line * 4}px auto; }`,
    )
  }
  return lines.join('\n')
}
