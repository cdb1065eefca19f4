/**
 * A corpus for checking token estimates against real tokenizers. Every sample was written for this
 * file; the long ones are generated from a seeded generator, so the corpus is the same on every run.
 * Test data: the tests import it from here; no entry of the package (`testing` included) ships it.
 */

/** A small seeded generator (mulberry32), so generated samples never change between runs. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = Math.imul(state ^ (state >>> 15), 1 | state)
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

function pick<T>(random: () => number, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)]!
}

function hex(random: () => number, length: number): string {
  let out = ''
  for (let index = 0; index < length; index++) out += '0123456789abcdef'[Math.floor(random() * 16)]
  return out
}

function uuid(random: () => number): string {
  return `${hex(random, 8)}-${hex(random, 4)}-4${hex(random, 3)}-a${hex(random, 3)}-${hex(random, 12)}`
}

function randomBytes(random: () => number, length: number): Uint8Array {
  const bytes = new Uint8Array(length)
  for (let index = 0; index < length; index++) bytes[index] = Math.floor(random() * 256)
  return bytes
}

function base64(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  let out = ''
  for (let index = 0; index < bytes.length; index += 3) {
    const a = bytes[index]!
    const b = bytes[index + 1] ?? 0
    const c = bytes[index + 2] ?? 0
    out += alphabet[a >> 2]! + alphabet[((a & 3) << 4) | (b >> 4)]!
    out += index + 1 < bytes.length ? alphabet[((b & 15) << 2) | (c >> 6)]! : '='
    out += index + 2 < bytes.length ? alphabet[c & 63]! : '='
  }
  return out
}

function digits(random: () => number, length: number): string {
  let out = ''
  for (let index = 0; index < length; index++) out += String(Math.floor(random() * 10))
  return out
}

const prose = [
  `The quarterly review went better than anyone on the team expected. Revenue from the new subscription tier grew by a little over a third, churn stayed flat, and the support queue, which had been the main worry in January, shrank after we rewrote the onboarding emails. There are still two open questions: whether the pricing page confuses people who arrive from search, and whether we should keep paying for the analytics vendor we barely use.`,
  `She left the station just after six, when the light over the river had turned the colour of weak tea. Nobody followed her, or at least nobody she could see. At the corner she stopped, pretended to read a poster about a concert that had happened weeks ago, and counted to thirty before crossing. The café was nearly empty. The man she had come to meet was already there, stirring a coffee he clearly had no intention of drinking.`,
  `Hi Marco,\n\nThanks for sending the draft over so quickly. I read it on the train this morning and I think the structure works, but the second section repeats a lot of what the introduction already says. Could you cut it down to two or three paragraphs and move the table about regional costs into an appendix? Also, please double-check the figures for Portugal; they look about ten percent too high compared with last year's report.\n\nBest,\nHelen`,
  `Photosynthesis converts light energy into chemical energy stored in glucose. In the light-dependent reactions, which take place in the thylakoid membranes, water molecules are split, oxygen is released, and the energy carriers ATP and NADPH are produced. The Calvin cycle then uses those carriers in the stroma to fix carbon dioxide into three-carbon sugars. Although the overall equation looks simple, the process involves dozens of enzymes, and its efficiency under real field conditions rarely exceeds two percent.`,
  `Before you start, make sure the device is unplugged and has cooled down for at least ten minutes. Remove the four screws on the back panel with a small Phillips screwdriver, then gently lift the cover; do not pull on the ribbon cable underneath. If the fan is clogged with dust, clean it with a soft brush or a can of compressed air held upright. Reassemble everything in reverse order and run the self-test described in chapter three.`,
  `I honestly don't know why the build keeps failing on CI but not locally. It's the same Node version, the same lockfile, and as far as I can tell the same environment variables. My best guess is that something in the cache is stale, so I'm going to wipe it and rerun the job. If that doesn't work, I'll pair with Priya tomorrow; she dealt with something similar last spring and might remember what fixed it.`,
  `The tenant shall keep the premises in good and clean condition and shall not make any alterations, additions or improvements without the prior written consent of the landlord, which consent shall not be unreasonably withheld. Any notice under this agreement must be given in writing and is deemed received two business days after posting, or immediately if delivered by hand during normal business hours.`,
  `Q: What's the difference between a process and a thread?\nA: A process has its own address space, file handles and other resources; a thread is a unit of execution inside a process and shares that address space with its sibling threads. Creating a thread is cheaper, and communication between threads is faster, but a bug in one thread can corrupt memory that all of them rely on.`,
]

const proseLong = prose.join('\n\n').repeat(3)

const typescript = [
  `import { readFile } from 'node:fs/promises'
import type { Logger } from './logger'

export interface RetryOptions {
  /** How many times to try before giving up. */
  attempts?: number
  /** Milliseconds to wait before the first retry; doubles each time. */
  delayMs?: number
}

export async function withRetry<T>(task: () => Promise<T>, { attempts = 3, delayMs = 200 }: RetryOptions = {}): Promise<T> {
  let lastError: unknown
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      return await task()
    } catch (error) {
      lastError = error
      await new Promise((resolve) => setTimeout(resolve, delayMs * 2 ** attempt))
    }
  }
  throw new Error(\`Task failed after \${attempts} attempts\`, { cause: lastError })
}

export async function loadConfig(path: string, logger: Logger): Promise<Record<string, unknown>> {
  const text = await withRetry(() => readFile(path, 'utf8'))
  logger.debug?.(\`loaded \${text.length} bytes from \${path}\`)
  return JSON.parse(text) as Record<string, unknown>
}
`,
  `type Action =
  | { type: 'add'; item: TodoItem }
  | { type: 'toggle'; id: string }
  | { type: 'remove'; id: string }

export function reducer(state: TodoState, action: Action): TodoState {
  switch (action.type) {
    case 'add':
      return { ...state, items: [...state.items, action.item] }
    case 'toggle':
      return {
        ...state,
        items: state.items.map((item) => (item.id === action.id ? { ...item, done: !item.done } : item)),
      }
    case 'remove':
      return { ...state, items: state.items.filter((item) => item.id !== action.id) }
  }
}

const selectOpenCount = (state: TodoState): number => state.items.filter((i) => !i.done).length
export const isEmpty = (s: TodoState) => s.items.length === 0 && !s.loading
`,
  `export class LruCache<K, V> {
  readonly #map = new Map<K, V>()
  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new RangeError('capacity must be a positive integer')
  }
  get(key: K): V | undefined {
    const value = this.#map.get(key)
    if (value !== undefined) {
      this.#map.delete(key)
      this.#map.set(key, value)
    }
    return value
  }
  set(key: K, value: V): this {
    this.#map.delete(key)
    this.#map.set(key, value)
    if (this.#map.size > this.capacity) this.#map.delete(this.#map.keys().next().value as K)
    return this
  }
}
`,
]

const python = [
  `import csv
import statistics
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Reading:
    sensor_id: str
    celsius: float


def load_readings(path: Path) -> list[Reading]:
    with path.open(newline="", encoding="utf-8") as handle:
        return [Reading(row["sensor"], float(row["value"])) for row in csv.DictReader(handle)]


def summarize(readings: list[Reading]) -> dict[str, tuple[float, float]]:
    by_sensor: dict[str, list[float]] = {}
    for reading in readings:
        by_sensor.setdefault(reading.sensor_id, []).append(reading.celsius)
    return {
        sensor: (statistics.mean(values), statistics.pstdev(values))
        for sensor, values in sorted(by_sensor.items())
    }


if __name__ == "__main__":
    for sensor, (mean, spread) in summarize(load_readings(Path("readings.csv"))).items():
        print(f"{sensor:>10}  mean={mean:6.2f}  sd={spread:5.2f}")
`,
  `class Graph:
    def __init__(self):
        self.edges = defaultdict(set)

    def add_edge(self, a, b):
        self.edges[a].add(b)
        self.edges[b].add(a)

    def shortest_path(self, start, goal):
        if start == goal:
            return [start]
        queue = deque([(start, [start])])
        seen = {start}
        while queue:
            node, path = queue.popleft()
            for nxt in self.edges[node] - seen:
                if nxt == goal:
                    return path + [nxt]
                seen.add(nxt)
                queue.append((nxt, path + [nxt]))
        return None
`,
]

function generatedTypescript(random: () => number): string {
  const nouns = [
    'user',
    'order',
    'invoice',
    'session',
    'widget',
    'report',
    'channel',
    'payload',
    'token',
    'account',
  ]
  const verbs = [
    'load',
    'save',
    'parse',
    'validate',
    'render',
    'fetch',
    'merge',
    'resolve',
    'encode',
    'archive',
  ]
  const lines: string[] = []
  for (let index = 0; index < 60; index++) {
    const noun = pick(random, nouns)
    const Noun = noun[0]!.toUpperCase() + noun.slice(1)
    const verb = pick(random, verbs)
    lines.push(
      `export async function ${verb}${Noun}${index}(id: string, options: ${Noun}Options = {}): Promise<${Noun} | null> {`,
      `  const key = \`${noun}:\${id}:${index}\``,
      `  if (options.cache?.has(key)) return options.cache.get(key) ?? null`,
      `  const response = await fetch(\`/api/${noun}s/\${encodeURIComponent(id)}?limit=${Math.floor(random() * 500)}\`)`,
      `  if (!response.ok) throw new HttpError(response.status, '${verb} ${noun} failed')`,
      `  return (await response.json()) as ${Noun}`,
      '}',
      '',
    )
  }
  return lines.join('\n')
}

function generatedPython(random: () => number): string {
  const names = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'theta', 'kappa', 'sigma']
  const lines: string[] = []
  for (let index = 0; index < 50; index++) {
    const name = pick(random, names)
    lines.push(
      `def compute_${name}_${index}(values: list[float], threshold: float = ${(random() * 10).toFixed(3)}) -> float:`,
      `    """Return the weighted ${name} score for values above the threshold."""`,
      '    total = 0.0',
      '    for i, value in enumerate(values):',
      '        if value > threshold:',
      `            total += value * ${(random() * 2).toFixed(4)} / (i + 1)`,
      '    return round(total, 6)',
      '',
      '',
    )
  }
  return lines.join('\n')
}

function generatedRecords(random: () => number, count: number): unknown[] {
  const cities = ['Lisbon', 'Osaka', 'Toronto', 'Nairobi', 'Bergen', 'Curitiba', 'Da Nang', 'Tbilisi']
  const statuses = ['active', 'suspended', 'pending_review', 'closed']
  const records: unknown[] = []
  for (let index = 0; index < count; index++) {
    records.push({
      id: uuid(random),
      index,
      createdAt: new Date(1_600_000_000_000 + Math.floor(random() * 200_000_000_000)).toISOString(),
      status: pick(random, statuses),
      balance: Math.round(random() * 10_000_000) / 100,
      score: random(),
      location: { city: pick(random, cities), lat: random() * 180 - 90, lng: random() * 360 - 180 },
      tags: Array.from({ length: 1 + Math.floor(random() * 4) }, () => hex(random, 6)),
      verified: random() > 0.5,
      referrer: random() > 0.7 ? null : uuid(random),
    })
  }
  return records
}

const jsonRecords = generatedRecords(seededRandom(7), 120)
const toolResult = {
  query: 'open invoices for ACME in Q3',
  total: 14,
  page: 1,
  results: generatedRecords(seededRandom(11), 14).map((record, index) => ({
    invoice: `INV-2024-${String(10_000 + index * 37)}`,
    amountCents: 125_000 + index * 4_999,
    currency: 'EUR',
    record,
  })),
}

const json = [
  JSON.stringify(jsonRecords, null, 2),
  JSON.stringify(jsonRecords),
  JSON.stringify(jsonRecords.slice(0, 5), null, 4),
  JSON.stringify(jsonRecords.slice(0, 40), null, '\t'),
  JSON.stringify(toolResult),
  JSON.stringify(toolResult, null, 2),
  `{"model":"gpt-4o","temperature":0.2,"messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"What's the weather in Paris tomorrow?"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"},"date":{"type":"string","format":"date"}},"required":["city"]}}}]}`,
  JSON.stringify({
    matrix: Array.from({ length: 30 }, (_, row) =>
      Array.from({ length: 30 }, (_, col) => (row * 31 + col * 17) % 1000),
    ),
  }),
]

const chinese = [
  '今天上午，我们召开了项目进度会议。会上，各小组负责人分别汇报了上周的工作情况和遇到的问题。开发组表示，新版本的登录模块已经基本完成，但在高并发测试中仍然出现了偶发的超时现象，需要进一步排查数据库连接池的配置。',
  '秋天的北京是一年中最美的季节。天空格外高远，空气清新，街道两旁的银杏树渐渐变成金黄色。周末的时候，很多家庭会带着孩子去香山看红叶，或者在公园里散步、放风筝，享受难得的好天气。',
  '请注意：由于系统升级，本平台将于本周六晚上十点至周日凌晨两点暂停服务。在此期间，您将无法登录账户、提交订单或查询物流信息。给您带来的不便，我们深表歉意，感谢您的理解与支持。',
  '机器学习模型的训练通常需要大量的标注数据。为了降低成本，研究人员提出了半监督学习、迁移学习以及数据增强等多种方法，使模型能够在数据有限的情况下依然保持较好的泛化能力。',
  '《论语》中说：“学而时习之，不亦说乎？有朋自远方来，不亦乐乎？”这几句话流传了两千多年，至今仍被许多人用来勉励自己坚持学习、珍惜友谊。',
]

const japanese = [
  '昨日は一日中雨が降っていたので、家で本を読んだり、映画を見たりして過ごしました。夕方になって少し晴れてきたので、近所のスーパーまで散歩がてら買い物に行きました。',
  'このアプリケーションを使用するには、まずアカウントを作成してください。登録が完了すると、確認メールが届きますので、メール内のリンクをクリックして認証を行ってください。',
  '東京駅から新幹線に乗って、約二時間半で京都に着きます。京都では、清水寺や金閣寺などの有名なお寺を見学したあと、祇園の古い町並みを歩いて、抹茶のスイーツを楽しみました。',
  'サーバーのメモリ使用量が急増しているため、キャッシュの設定を見直す必要があります。特に、セッションデータの有効期限が長すぎる可能性があるので、ログを確認してから対応を決めましょう。',
  'ひらがなとカタカナだけでかいたぶんしょうは、すこしよみにくいですが、こどもむけのえほんではよくつかわれています。コンピューター、インターネット、スマートフォン、ダウンロード。',
]

const korean = [
  '오늘 아침에 회의가 있어서 평소보다 일찍 출근했습니다. 회의에서는 다음 달에 출시할 새로운 서비스의 일정과 마케팅 전략에 대해 이야기를 나누었고, 몇 가지 세부 사항은 다음 주까지 다시 정리하기로 했습니다.',
  '서울의 가을 날씨는 정말 좋습니다. 하늘이 맑고 바람이 선선해서 산책하기에 딱 알맞습니다. 주말에는 친구들과 함께 한강 공원에 가서 자전거를 타고 치킨을 먹을 계획입니다.',
  '비밀번호를 변경하려면 설정 메뉴에서 보안 항목을 선택한 후, 현재 비밀번호와 새 비밀번호를 입력하십시오. 새 비밀번호는 영문, 숫자, 특수문자를 포함하여 여덟 자 이상이어야 합니다.',
  '한국어는 한글이라는 고유한 문자로 표기되며, 자음과 모음을 조합하여 음절 단위로 글자를 만듭니다. 세종대왕이 창제한 한글은 과학적인 구조로 잘 알려져 있습니다.',
]

const emoji = [
  'Great job on the release today 🎉🎉 everyone worked so hard 💪 and it shows! Next stop: the beach 🏖️☀️🍹',
  '😀😃😄😁😆😅😂🤣🥲☺️😊😇🙂🙃😉😌😍🥰😘😗😙😚😋😛😝😜🤪🤨🧐🤓😎🥸🤩🥳',
  '👨‍👩‍👧‍👦 👩🏽‍💻 🧑🏿‍🚀 🏳️‍🌈 🇯🇵 🇧🇷 🇩🇪 👍🏻👍🏼👍🏽👍🏾👍🏿 ❤️‍🔥 🫶🏻',
  'Status: ✅ build passed · ⚠️ 3 warnings · ❌ 0 errors · ⏱️ 2m 14s · 📦 1.2 MB',
  '🍎🍐🍊🍋🍌🍉🍇🍓🫐🍈🍒🍑🥭🍍🥥🥝🍅🍆🥑🥦🥬🥒🌶️🫑🌽🥕🫒🧄🧅🥔🍠🥐🥯🍞🥖🥨🧀🥚🍳🧈🥞🧇🥓🥩🍗🍖🦴🌭🍔🍟🍕',
]

const mixed = [
  '## Release notes (v2.3.0)\n\n- Fixed a crash when `config.yaml` contained tabs 🐛\n- 新增：支持中文文件名\n- 日本語のエラーメッセージを追加しました\n- Performance: p95 latency 412ms → 187ms (−54%) 🚀\n\nSee https://example.com/changelog#v2.3.0 for details.',
  'User: can you translate "good morning" into Chinese, Japanese and Korean?\nAssistant: Sure! 🇨🇳 早上好 (zǎo shang hǎo) · 🇯🇵 おはようございます (ohayō gozaimasu) · 🇰🇷 좋은 아침입니다 (joeun achimimnida)',
  'Die Größe der Datei beträgt 3,4 MB. Les élèves étudient à l’école façon très naïve. ¿Dónde está la biblioteca? Ça coûte 12,50 €. Příliš žluťoučký kůň úpěl ďábelské ódy.',
  "Error: ENOENT: no such file or directory, open '/home/张伟/项目/数据.csv'\n    at Object.openSync (fs.js:476:3)\n    at readFileSync (fs.js:377:35) 😬",
  '| Name | Score | 備考 |\n|------|------:|------|\n| Ana  | 93.5  | 優秀 ✨ |\n| Bo   | 71.25 | 要改善 |\n| 김민수 | 88 | 좋음 👍 |',
]

function generatedDigits(random: () => number): string[] {
  return [
    digits(random, 1000),
    Array.from(
      { length: 200 },
      () => `+1 (${digits(random, 3)}) ${digits(random, 3)}-${digits(random, 4)}`,
    ).join('\n'),
    Array.from({ length: 300 }, () => (random() * 1e6).toFixed(4)).join(', '),
    Array.from({ length: 200 }, () => String(1_700_000_000_000 + Math.floor(random() * 1e10))).join(' '),
    '3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651',
    Array.from({ length: 100 }, (_, index) => `${index + 1}. ${digits(random, 12)}`).join('\n'),
    digits(random, 7),
  ]
}

function generatedBlobs(random: () => number): string[] {
  const blob = base64(randomBytes(random, 3000))
  const wrapped = blob.match(/.{1,76}/g)!.join('\n')
  return [
    blob,
    wrapped,
    `data:image/png;base64,${base64(randomBytes(random, 1200))}`,
    hex(random, 2000),
    hex(random, 2000).toUpperCase(),
    Array.from({ length: 40 }, () => `${hex(random, 64)}  dist/chunk-${hex(random, 8)}.js`).join('\n'),
    Array.from({ length: 60 }, () => uuid(random)).join('\n'),
    `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.${base64(randomBytes(random, 180)).replace(/=+$/, '')}.${base64(randomBytes(random, 32)).replace(/=+$/, '')}`,
    base64(randomBytes(random, 24)),
  ]
}

const whitespace = [
  `${' '.repeat(200)}end`,
  `start${'\n'.repeat(50)}end`,
  `a${'\t'.repeat(40)}b`,
  Array.from({ length: 30 }, (_, index) => `${'    '.repeat(index % 8)}line ${index}   `).join('\n'),
  Array.from({ length: 40 }, (_, index) => `${'\t'.repeat(index % 6)}key_${index}: value`).join('\r\n'),
  'word \n \n \n  \t \t\n\n\n   word   \n\n\n\n\n\n\n\n  \t\t\t\t  x',
  '   ',
  ' \n',
  Array.from({ length: 30 }, (_, index) => `${' '.repeat(index * 3)}|`).join('\n'),
]

const otherScripts = [
  'Вчера вечером мы долго гуляли по набережной и обсуждали планы на лето. Погода была тёплой, а на реке было много лодок.',
  'Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο. Αυτή η πρόταση περιέχει σχεδόν όλα τα γράμματα.',
  'مرحبا بكم في موقعنا. يرجى تسجيل الدخول للمتابعة، أو إنشاء حساب جديد إذا كنت مستخدما جديدا.',
  'שלום לכולם, הפגישה הבאה תתקיים ביום שלישי בשעה עשר בבוקר בחדר הישיבות הגדול.',
  'नमस्ते, आज का मौसम बहुत अच्छा है। हम शाम को पार्क में टहलने जाएंगे और फिर खाना खाएंगे।',
  'สวัสดีครับ วันนี้อากาศดีมาก เราจะไปเที่ยวทะเลกันในวันหยุดสุดสัปดาห์นี้',
  'Hôm nay trời đẹp quá, chúng tôi sẽ đi dạo quanh hồ Hoàn Kiếm và ăn phở ở một quán nhỏ gần đó.',
]

/** The sample categories, each with several realistic samples, some of them long. */
export const tokenSamples: Record<string, readonly string[]> = {
  prose: [...prose, proseLong],
  code: [...typescript, ...python, generatedTypescript(seededRandom(3)), generatedPython(seededRandom(5))],
  json,
  chinese: [...chinese, chinese.join('').repeat(4)],
  japanese: [...japanese, japanese.join('').repeat(4)],
  korean: [...korean, korean.join(' ').repeat(4)],
  emoji,
  mixed: [...mixed, mixed.join('\n\n').repeat(3)],
  digits: generatedDigits(seededRandom(13)),
  blobs: generatedBlobs(seededRandom(17)),
  whitespace,
  'other scripts': otherScripts,
}
