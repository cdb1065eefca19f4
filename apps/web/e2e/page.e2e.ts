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

function watch(page: Page) {
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  page.on('requestfailed', (request) =>
    problems.push(`request failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`),
  )
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`)
  })
}

describe('the web app in Chromium', () => {
  it('shows the agent working: a transition in the chat, every level in the timeline, a project view without the task calls, ≥ 75% saved', async () => {
    const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } })
    watch(page)
    await page.goto(app.url)
    await page.waitForURL(/\?thread=web-/)
    await page.getByLabel('Message').fill('Build the landing page for Acme Rockets')
    await page.getByTestId('send').click()

    // The scripted agent closes its first task: its transition shows in the chat.
    const transition = page.getByTestId('transition').first()
    await transition.waitFor({ timeout: 60_000 })
    expect(await transition.textContent()).toMatch(/Hero section/)
    await page.screenshot({ path: `${screenshots}1-first-task-closed.png`, fullPage: true })

    // The whole project: three tasks, then the agent reports and the chat is ready again.
    await page
      .getByTestId('chat-status')
      .filter({ hasText: /^ready$/ })
      .waitFor({ timeout: 120_000 })
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
    for (const level of ['global', 'project', 'task']) {
      expect(
        await page.locator(`[data-testid=timeline-item][data-level=${level}]`).count(),
        level,
      ).toBeGreaterThan(0)
    }
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

    // The meter: at least 75% of the thread's tokens are not sent.
    await expect
      .poll(async () => Number(await page.getByTestId('meter').getAttribute('data-saved-ratio')), {
        timeout: 10_000,
      })
      .toBeGreaterThanOrEqual(0.75)
    expect(await page.getByTestId('saved').textContent()).toMatch(/^\d+% saved$/)
    await page.screenshot({ path: `${screenshots}2-project-done.png`, fullPage: true })
    // A small copy for the README (docs/screenshot.jpg is this file, committed).
    await page.screenshot({ path: `${screenshots}readme.jpg`, type: 'jpeg', quality: 70 })

    // A control: preview the global level's context (read-only), then come back.
    await page.getByTestId('preview-level').selectOption('global')
    await expect.poll(() => page.getByTestId('context').getAttribute('data-level')).toBe('global')
    await page.screenshot({ path: `${screenshots}3-preview-global.png`, fullPage: true })
    await page.getByTestId('preview-level').selectOption('project')
    await expect.poll(() => page.getByTestId('context').getAttribute('data-level')).toBe('project')

    // A reload keeps the chat (the browser keeps it per thread) and the thread goes on: the re-sent
    // history is recognised, the question is answered from the summaries.
    await page.reload()
    await expect.poll(() => page.getByTestId('transition').count(), { timeout: 10_000 }).toBe(3)
    await page.getByLabel('Message').fill('What did you build?')
    await page.getByTestId('send').click()
    await expect
      .poll(async () => (await page.getByTestId('message-assistant').last().textContent()) ?? '', {
        timeout: 30_000,
      })
      .toContain('So far: Hero done')
    await page
      .getByTestId('chat-status')
      .filter({ hasText: /^ready$/ })
      .waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('chat-error').count()).toBe(0)
    await page.screenshot({ path: `${screenshots}4-after-reload.png`, fullPage: true })

    // Compact now: the status panel reports the compaction.
    await page.getByTestId('compact').click()
    await expect
      .poll(async () => (await page.getByTestId('last-compaction').textContent()) ?? '', { timeout: 30_000 })
      .not.toBe('none yet')
    // The timeline marks what the compaction archived, and its episodic summary.
    await expect
      .poll(() => page.getByTestId('archived-range').count(), { timeout: 10_000 })
      .toBeGreaterThan(0)
    expect(await page.locator('[data-testid=timeline-item][data-type=summary]').count()).toBeGreaterThan(3)
    await page.screenshot({ path: `${screenshots}5-compacted.png`, fullPage: true })

    await page.close()
    expect(problems, app.output()).toEqual([])
  })
})
