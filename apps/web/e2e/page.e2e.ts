import { mkdirSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AppServer, ensureBuild, startApp } from './app-server'

const screenshots = fileURLToPath(new URL('./screenshots/', import.meta.url))
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
]
const REQUEST = 'Build the landing page for Acme Rockets'
const VIEWPORT = { width: 1500, height: 1000 }

let app: AppServer
let browser: Browser
let memoryDir: string
/** Everything that went wrong in the browser: console errors, page errors, failed requests. */
const problems: string[] = []

beforeAll(async () => {
  ensureBuild()
  memoryDir = await mkdtemp(join(tmpdir(), 'strata-web-e2e-'))
  app = await startApp(memoryDir)
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })
  mkdirSync(screenshots, { recursive: true })
})

afterAll(async () => {
  await browser?.close()
  await app?.stop()
  if (memoryDir) await rm(memoryDir, { recursive: true, force: true })
})

/**
 * Records what goes wrong in a page. `expected` lists the HTTP statuses a test provokes on purpose
 * (a 409 from a busy chat): the browser logs those responses as console errors too.
 */
function watch(page: Page, { expected = [] }: { expected?: number[] } = {}) {
  const allowed = (text: string) => expected.some((status) => text.includes(`status of ${status}`))
  page.on('console', (message) => {
    if (message.type() === 'error' && !allowed(message.text()))
      problems.push(`console error: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  page.on('requestfailed', (request) => {
    const failure = request.failure()?.errorText ?? ''
    // A reload cancels the page's own requests (the chat's stream, a panel fetch): not a failure.
    if (failure === 'net::ERR_ABORTED') return
    problems.push(`request failed: ${request.method()} ${request.url()} ${failure}`)
  })
  page.on('response', (response) => {
    if (response.status() >= 400 && !expected.includes(response.status())) {
      problems.push(`HTTP ${response.status()}: ${response.url()}`)
    }
  })
}

async function newPage(expected: number[] = []) {
  const page = await browser.newPage({ viewport: VIEWPORT })
  watch(page, { expected })
  return page
}

const ready = (page: Page, timeout = 120_000) =>
  page
    .getByTestId('chat-status')
    .filter({ hasText: /^ready$/ })
    .waitFor({ timeout })

async function send(page: Page, text: string) {
  await page.getByLabel('Message').fill(text)
  await page.getByTestId('send').click()
}

/** The text of the chat's messages of a role. */
const texts = (page: Page, role: 'user' | 'assistant') =>
  page.getByTestId(`message-${role}`).evaluateAll((nodes) => nodes.map((node) => node.textContent ?? ''))

/** A thread the agent has worked on in full: its URL. */
let builtThread: string

describe('the web app in Chromium', () => {
  it('shows the agent working: a transition in the chat, every level in the timeline, a project view without the task calls, ≥ 75% saved', async () => {
    const page = await newPage()
    await page.goto(app.url)
    await page.waitForURL(/\?thread=web-/)
    // An empty thread reads as empty: no full bar at 0% saved, no panel left on "Loading…".
    await page.getByTestId('meter-empty').waitFor({ timeout: 10_000 })
    await page.getByTestId('timeline-empty').waitFor()
    expect(await page.getByTestId('saved').count()).toBe(0)
    expect(await page.getByText('Loading…').count()).toBe(0)
    await page.screenshot({ path: `${screenshots}0-empty-thread.png`, fullPage: true })
    await send(page, REQUEST)

    // The scripted agent closes its first task: its transition shows in the chat.
    const transition = page.getByTestId('transition').first()
    await transition.waitFor({ timeout: 60_000 })
    expect(await transition.textContent()).toMatch(/Hero section/)
    await page.screenshot({ path: `${screenshots}1-first-task-closed.png`, fullPage: true })

    // The whole project: three tasks, then the agent reports and the chat is ready again.
    await ready(page)
    await expect.poll(() => page.getByTestId('transition').count(), { timeout: 10_000 }).toBe(3)
    await expect
      .poll(() => page.getByTestId('context').getAttribute('data-level'), { timeout: 10_000 })
      .toBe('project')

    // The timeline holds items of every level.
    await expect
      .poll(
        async () =>
          new Set(
            await page
              .getByTestId('timeline-item')
              .evaluateAll((items) => items.map((item) => item.getAttribute('data-level'))),
          ).size,
        { timeout: 10_000 },
      )
      .toBe(3)
    // Items of the closed tasks are outside the project's view: dimmed.
    expect(
      await page.locator('[data-testid=timeline-item][data-level=task][data-in-view=false]').count(),
    ).toBeGreaterThan(0)

    // What the model sees at the project level: none of the tasks' tool calls, the summaries instead.
    const context = (await page.getByTestId('context').textContent()) ?? ''
    expect(context).toContain('enter_scope') // the project's own calls are there…
    expect(context).not.toContain('→ write_file') // …the tasks' calls are not
    expect(context).not.toContain('← write_file')
    expect(context).toContain('Pricing done')

    // The meter: at least 75% of the thread's tokens are not sent, and its legend says what it measures.
    await expect
      .poll(async () => Number(await page.getByTestId('meter').getAttribute('data-saved-ratio')), {
        timeout: 10_000,
      })
      .toBeGreaterThanOrEqual(0.75)
    expect(await page.getByTestId('saved').textContent()).toMatch(/^\d+% saved$/)
    const legend = (await page.getByTestId('meter-legend').textContent()) ?? ''
    expect(legend).toMatch(/sent: [\d,]+ tokens in the next call/)
    expect(legend).toMatch(/in thread: [\d,]+ tokens/)
    expect(legend).toMatch(/budget: [\d,]+ tokens/)
    await page.screenshot({ path: `${screenshots}2-project-done.png`, fullPage: true })
    // A small copy for the README (docs/screenshot.jpg is this file, committed).
    await page.screenshot({ path: `${screenshots}readme.jpg`, type: 'jpeg', quality: 70 })

    // A control: preview the global level's context (read-only), then come back.
    await page.getByTestId('preview-level').selectOption('global')
    await expect.poll(() => page.getByTestId('context').getAttribute('data-level')).toBe('global')
    await page.screenshot({ path: `${screenshots}3-preview-global.png`, fullPage: true })
    await page.getByTestId('preview-level').selectOption('project')
    await expect.poll(() => page.getByTestId('context').getAttribute('data-level')).toBe('project')

    // A reload reads the chat from the thread (the page keeps no copy) and the thread goes on.
    await page.reload()
    await expect.poll(() => page.getByTestId('transition').count(), { timeout: 10_000 }).toBe(3)
    await send(page, 'What did you build?')
    await expect
      .poll(async () => (await texts(page, 'assistant')).at(-1) ?? '', { timeout: 30_000 })
      .toContain('So far: Hero done')
    await ready(page, 30_000)
    expect(await page.getByTestId('chat-error').count()).toBe(0)
    await page.screenshot({ path: `${screenshots}4-after-reload.png`, fullPage: true })

    // Compact now: the status panel and the timeline report the compaction.
    await page.getByTestId('compact').click()
    await expect
      .poll(async () => (await page.getByTestId('last-compaction').textContent()) ?? '', { timeout: 30_000 })
      .not.toBe('none yet')
    await expect
      .poll(() => page.getByTestId('archived-range').count(), { timeout: 10_000 })
      .toBeGreaterThan(0)
    await page.getByTestId('timeline-compaction').waitFor({ timeout: 10_000 })
    expect(await page.locator('[data-testid=timeline-item][data-type=summary]').count()).toBeGreaterThan(3)
    await page.screenshot({ path: `${screenshots}5-compacted.png`, fullPage: true })

    builtThread = page.url()
    await page.close()
    expect(problems, app.output()).toEqual([])
  })

  it('opens the thread in a second browser (nothing shared but the URL) and continues it there', async () => {
    expect(builtThread).toBeDefined()
    const context = await browser.newContext({ viewport: VIEWPORT })
    try {
      const page = await context.newPage()
      watch(page)
      await page.goto(builtThread)
      // The chat as the thread holds it: both questions, the work of the first with its transitions.
      await expect
        .poll(() => texts(page, 'user'), { timeout: 10_000 })
        .toEqual([REQUEST, 'What did you build?'])
      expect(await page.getByTestId('transition').count()).toBe(3)
      expect(await page.getByTestId('tool-call').count()).toBeGreaterThan(10)
      // The thread list names it.
      await page.getByTestId('thread-list').locator('summary').click()
      const threadId = new URL(builtThread).searchParams.get('thread')!
      expect(await page.locator(`[data-testid=thread-link][data-thread="${threadId}"]`).textContent()).toBe(
        REQUEST,
      )
      await page.screenshot({ path: `${screenshots}6-second-browser-opened.png`, fullPage: true })
      await page.getByTestId('thread-list').locator('summary').click()

      await send(page, 'Thanks, anything left?')
      await expect
        .poll(async () => (await texts(page, 'assistant')).at(-1) ?? '', { timeout: 30_000 })
        .toContain('So far: Hero done')
      await ready(page, 30_000)
      expect(await page.getByTestId('chat-error').count()).toBe(0)
      expect(await texts(page, 'user')).toEqual([REQUEST, 'What did you build?', 'Thanks, anything left?'])
      await page.screenshot({ path: `${screenshots}7-second-browser-continued.png`, fullPage: true })
    } finally {
      await context.close()
    }
    expect(problems, app.output()).toEqual([])
  })

  it('survives a reload mid-stream: the server finishes the run, the page shows it once, the next message continues it', async () => {
    const page = await newPage()
    await page.goto(app.url)
    await page.waitForURL(/\?thread=web-/)
    await send(page, REQUEST)
    // Mid-stream: a task's files are being written.
    await page.getByTestId('tool-call').nth(2).waitFor({ timeout: 60_000 })
    expect(await page.getByTestId('chat-status').textContent()).toMatch(/streaming|submitted/)
    await page.reload()
    // The page comes back on the running answer and follows it to its end.
    await page.getByTestId('message-user').first().waitFor({ timeout: 10_000 })
    await page.screenshot({ path: `${screenshots}8-reloaded-mid-stream.png`, fullPage: true })
    await ready(page)
    await expect.poll(() => page.getByTestId('transition').count(), { timeout: 10_000 }).toBe(3)
    expect(await texts(page, 'user')).toEqual([REQUEST])
    const answers = await texts(page, 'assistant')
    expect(answers).toHaveLength(1)
    expect(answers[0]).toContain('The landing page is built')
    // Each file was written once: the replay did not add the answer's parts twice.
    const paths = await page
      .locator('[data-testid=tool-call][data-tool=write_file] summary .muted:first-of-type')
      .allTextContents()
    expect(new Set(paths).size).toBe(paths.length)
    await page.screenshot({ path: `${screenshots}9-reloaded-finished.png`, fullPage: true })

    // Another reload shows the same finished work, read from the thread; the next message continues.
    await page.reload()
    await expect.poll(() => page.getByTestId('transition').count(), { timeout: 10_000 }).toBe(3)
    await send(page, 'What did you build?')
    await expect
      .poll(async () => (await texts(page, 'assistant')).at(-1) ?? '', { timeout: 30_000 })
      .toContain('So far: Hero done')
    await ready(page, 30_000)
    expect(await page.getByTestId('chat-error').count()).toBe(0)
    await page.screenshot({ path: `${screenshots}10-reloaded-continued.png`, fullPage: true })
    await page.close()
    expect(problems, app.output()).toEqual([])
  })

  it('shows a second tab sending at once that the chat is busy, then lets it send once the other answer is done', async () => {
    const first = await newPage([409])
    await first.goto(app.url)
    await first.waitForURL(/\?thread=web-/)
    const second = await newPage([409])
    await second.goto(first.url())
    await send(first, REQUEST)
    await first.getByTestId('tool-call').first().waitFor({ timeout: 60_000 })
    await send(second, 'Build the Zenith landing page instead')

    // The second tab: a readable line, not a failure; its message goes back to the composer.
    const busy = second.getByTestId('chat-busy')
    await busy.waitFor({ timeout: 10_000 })
    expect(await busy.getAttribute('data-code')).toBe('STRATA_THREAD_BUSY')
    expect(await busy.textContent()).toMatch(/^This chat is busy with another reply/)
    expect(await busy.textContent()).not.toContain('{')
    expect(await second.getByTestId('chat-error').count()).toBe(0)
    expect(await second.getByLabel('Message').inputValue()).toBe('Build the Zenith landing page instead')
    await second.screenshot({ path: `${screenshots}11-second-tab-busy.png`, fullPage: true })

    // The first tab's answer ends; the second tab catches up with it, then sends again and is answered.
    await ready(first)
    await second.getByTestId('chat-caught-up').waitFor({ timeout: 30_000 })
    await expect.poll(() => second.getByTestId('transition').count(), { timeout: 10_000 }).toBe(3)
    expect(await texts(second, 'user')).toEqual([REQUEST])
    await second.screenshot({ path: `${screenshots}12-second-tab-caught-up.png`, fullPage: true })
    await second.getByTestId('send').click()
    await expect
      .poll(async () => (await texts(second, 'user')).at(-1), { timeout: 10_000 })
      .toBe('Build the Zenith landing page instead')
    await ready(second, 60_000)
    expect(await second.getByTestId('chat-busy').count()).toBe(0)
    expect(await second.getByTestId('chat-error').count()).toBe(0)
    expect((await texts(second, 'assistant')).at(-1)).toMatch(/\S/)
    await second.screenshot({ path: `${screenshots}13-second-tab-sent.png`, fullPage: true })
    await first.close()
    await second.close()
    expect(problems, app.output()).toEqual([])
  })

  it('shows errors as a readable line with their code: a thread id that cannot be, an answer that cannot be regenerated', async () => {
    const page = await newPage([400, 409])
    await page.goto(`${app.url}/?thread=${encodeURIComponent('not a thread id!')}`)
    const error = page.getByTestId('page-error')
    await error.waitFor({ timeout: 10_000 })
    expect(await error.getAttribute('data-code')).toBe('STRATA_INVALID_THREAD_ID')
    expect(await error.textContent()).toMatch(/cannot be opened/)
    expect(await error.textContent()).not.toContain('{')
    await page.screenshot({ path: `${screenshots}14-error-thread-id.png`, fullPage: true })

    // The agent's answer opened the project and its tasks: regenerating it cannot undo that.
    await page.goto(app.url)
    await page.waitForURL(/\?thread=web-/)
    await send(page, REQUEST)
    await ready(page)
    const before = await texts(page, 'assistant')
    await page.getByTestId('regenerate').click()
    const chatError = page.getByTestId('chat-error')
    await chatError.waitFor({ timeout: 30_000 })
    expect(await chatError.getAttribute('data-code')).toMatch(/^STRATA_[A-Z_]+$/)
    expect(await chatError.textContent()).not.toContain('{')
    // The page reads the chat again from the thread: the answer it took away for the regenerate is back.
    await expect.poll(() => texts(page, 'assistant'), { timeout: 10_000 }).toEqual(before)
    expect(await chatError.count()).toBe(1)
    await page.screenshot({ path: `${screenshots}15-error-regenerate.png`, fullPage: true })
    // Nothing was rewound: a reload shows the same chat.
    await page.reload()
    await expect.poll(() => texts(page, 'assistant'), { timeout: 10_000 }).toEqual(before)
    await page.close()
    expect(problems, app.output()).toEqual([])
  })
  it('asks a person before publishing: Approve runs the call once, and a reload shows it done', async () => {
    const page = await newPage()
    await page.goto(app.url)
    await page.waitForURL(/\?thread=web-/)
    await send(page, 'Publish the site')
    const control = page.getByTestId('approval')
    await control.waitFor({ timeout: 30_000 })
    expect(await control.getAttribute('data-tool')).toBe('publish_site')
    await page.screenshot({ path: `${screenshots}18-approval-asked.png`, fullPage: true })
    await page.getByTestId('approve').click()
    await expect
      .poll(async () => (await texts(page, 'assistant')).at(-1), { timeout: 30_000 })
      .toContain('Published to production.')
    await ready(page)
    const call = page.locator('[data-testid="tool-call"][data-tool="publish_site"]')
    expect(await call.getAttribute('data-state')).toBe('output-available')
    await page.screenshot({ path: `${screenshots}19-approval-done.png`, fullPage: true })
    await page.reload()
    await ready(page)
    expect(await page.getByTestId('approval').count()).toBe(0)
    expect(await call.getAttribute('data-state')).toBe('output-available')
    expect((await texts(page, 'assistant')).at(-1)).toContain('Published to production.')
    await page.close()
    expect(problems, app.output()).toEqual([])
  })

  it('shows budget compactions in the chat and the timeline as they happen (a small input budget)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-web-e2e-budget-'))
    const small = await startApp(dir, { STRATA_WEB_BUDGET_TOKENS: '6000' })
    try {
      const page = await newPage()
      await page.goto(small.url)
      await page.waitForURL(/\?thread=web-/)
      await send(page, REQUEST)
      // The agent's tool steps fill the budget: a compaction ends while the answer streams.
      const compaction = page.getByTestId('compaction').first()
      await compaction.waitFor({ timeout: 60_000 })
      expect(await compaction.getAttribute('data-trigger')).toBe('budget')
      expect(await compaction.textContent()).toMatch(
        /Memory compacted \(the input budget filled up\): \d+ older items/,
      )
      const timeline = page.getByTestId('timeline-compaction')
      await timeline.waitFor({ timeout: 10_000 })
      expect(await timeline.textContent()).toMatch(/budget/)
      await expect
        .poll(() => page.getByTestId('archived-range').count(), { timeout: 10_000 })
        .toBeGreaterThan(0)
      await page.screenshot({ path: `${screenshots}16-budget-compaction.png`, fullPage: true })
      await ready(page)
      // A reload shows the same compactions (the same ids) in the same places.
      const ids = () =>
        page
          .getByTestId('compaction')
          .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-id')))
      const shown = await ids()
      await page.reload()
      await ready(page)
      expect(await ids()).toEqual(shown)
      await page.screenshot({ path: `${screenshots}17-budget-compaction-reloaded.png`, fullPage: true })
      await page.close()
    } finally {
      await small.stop()
      await rm(dir, { recursive: true, force: true })
    }
    expect(problems, small.output()).toEqual([])
  })
})
