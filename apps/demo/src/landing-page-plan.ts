import type { JsonObject } from '@strata-memory/core'

/** How `align_shapes` lines shapes up. */
export type AlignMode =
  | 'left'
  | 'center'
  | 'right'
  | 'top'
  | 'middle'
  | 'bottom'
  | 'distribute-x'
  | 'distribute-y'

/** A shape as the model asks `create_shape` for it; the canvas answers with its id. */
export type ShapeSpec = {
  name: string
  type: 'rect' | 'ellipse' | 'text' | 'image' | 'line'
  x: number
  y: number
  width: number
  height: number
  fill?: string
  stroke?: string
  radius?: number
  text?: string
  fontFamily?: string
  fontSize?: number
  fontWeight?: number
  color?: string
  src?: string
}

/**
 * One step of a task. Steps name shapes; the model turns names into the ids it reads in earlier tool
 * results of its context, so a task can only be carried out if its own results are in view.
 */
export type TaskStep =
  | { toolName: 'create_shape'; shape: ShapeSpec }
  | { toolName: 'update_shape'; target: string; changes: JsonObject }
  | { toolName: 'align_shapes'; targets: string[]; align: AlignMode }
  | { toolName: 'group_shapes'; targets: string[]; group: string }

/** A task of the project: what `enter('task')` opens, and the model's script for it. */
export interface TaskPlan {
  title: string
  instructions: string
  /** What the model says at project level before it opens the task. */
  announcement: string
  /** What the model says when the task is done, before the scope closes. */
  report: string
  steps: TaskStep[]
}

/** A project-level tool action. */
export interface ProjectStep {
  toolName: string
  input: JsonObject
}

const create = (shape: ShapeSpec): TaskStep => ({ toolName: 'create_shape', shape })
const update = (target: string, changes: JsonObject): TaskStep => ({
  toolName: 'update_shape',
  target,
  changes,
})
const align = (targets: string[], mode: AlignMode): TaskStep => ({
  toolName: 'align_shapes',
  targets,
  align: mode,
})
const group = (targets: string[], name: string): TaskStep => ({
  toolName: 'group_shapes',
  targets,
  group: name,
})

const NAV = ['Menu', 'About', 'Locations', 'Catering', 'Contact']
const navName = (label: string) => `nav/${label.toLowerCase()}`

const header: TaskPlan = {
  title: 'Header bar',
  instructions:
    'Full-width bar at the top of the page: the Acme Bakery logo on the left, five navigation links, and an "Order online" button on the right. Brand colours, 96px high.',
  announcement: 'Starting with the header bar.',
  report:
    'The header bar is done: logo, five navigation links and the "Order online" button, grouped as "Header".',
  steps: [
    create({ name: 'header/background', type: 'rect', x: 0, y: 0, width: 1440, height: 96, fill: '#FFF8F0' }),
    create({
      name: 'header/logo',
      type: 'text',
      x: 48,
      y: 28,
      width: 220,
      height: 40,
      text: 'Acme Bakery',
      fontFamily: 'Fraunces',
      fontSize: 28,
      color: '#7C2D12',
    }),
    ...NAV.map((label, index) =>
      create({
        name: navName(label),
        type: 'text',
        x: 520 + index * 118,
        y: 36,
        width: 96,
        height: 24,
        text: label,
        fontFamily: 'Inter',
        fontSize: 16,
        color: '#44403C',
      }),
    ),
    create({
      name: 'header/cta',
      type: 'rect',
      x: 1232,
      y: 24,
      width: 160,
      height: 48,
      fill: '#C2410C',
      radius: 24,
    }),
    create({
      name: 'header/cta-label',
      type: 'text',
      x: 1256,
      y: 36,
      width: 112,
      height: 24,
      text: 'Order online',
      fontFamily: 'Inter',
      fontSize: 16,
      fontWeight: 600,
      color: '#FFFFFF',
    }),
    align(NAV.map(navName), 'middle'),
    align(NAV.map(navName), 'distribute-x'),
    align(['header/cta', 'header/cta-label'], 'center'),
    align(['header/cta', 'header/cta-label'], 'middle'),
    update('header/logo', { fontSize: 30, letterSpacing: -0.5 }),
    update('nav/menu', { fontWeight: 600, underline: true }),
    update('header/background', { shadow: '0 1px 0 #E7D8C9' }),
    update('header/cta', { fill: '#B45309' }),
    align(['header/logo', 'nav/menu', 'header/cta'], 'middle'),
    create({ name: 'header/divider', type: 'line', x: 0, y: 95, width: 1440, height: 1, stroke: '#E7D8C9' }),
    group(
      [
        'header/background',
        'header/logo',
        ...NAV.map(navName),
        'header/cta',
        'header/cta-label',
        'header/divider',
      ],
      'Header',
    ),
  ],
}

const hero: TaskPlan = {
  title: 'Hero section',
  instructions:
    'Below the header, 640px high: a headline, a subheading, two buttons (order, see the menu) and a large croissant photo on the right. Warm cream and orange tones.',
  announcement: 'Header is locked. Now the hero section, in warm cream and orange.',
  report:
    'The hero section is done: headline, subheading, two buttons, the croissant photo and a "Fresh daily" badge.',
  steps: [
    create({ name: 'hero/background', type: 'rect', x: 0, y: 96, width: 1440, height: 640, fill: '#FFEFD9' }),
    create({
      name: 'hero/headline',
      type: 'text',
      x: 120,
      y: 256,
      width: 560,
      height: 128,
      text: 'Baked before sunrise, gone by noon.',
      fontFamily: 'Fraunces',
      fontSize: 56,
      color: '#431407',
    }),
    create({
      name: 'hero/subhead',
      type: 'text',
      x: 120,
      y: 408,
      width: 520,
      height: 56,
      text: 'Sourdough, croissants and cinnamon rolls from our ovens in Portland since 1987.',
      fontFamily: 'Inter',
      fontSize: 20,
      color: '#78350F',
    }),
    create({
      name: 'hero/photo',
      type: 'image',
      x: 760,
      y: 160,
      width: 560,
      height: 512,
      src: 'assets/hero-croissant.jpg',
      radius: 32,
    }),
    create({
      name: 'hero/order',
      type: 'rect',
      x: 120,
      y: 512,
      width: 184,
      height: 56,
      fill: '#C2410C',
      radius: 28,
    }),
    create({
      name: 'hero/order-label',
      type: 'text',
      x: 148,
      y: 528,
      width: 128,
      height: 24,
      text: 'Order now',
      fontFamily: 'Inter',
      fontSize: 18,
      fontWeight: 600,
      color: '#FFFFFF',
    }),
    create({
      name: 'hero/menu-link',
      type: 'rect',
      x: 328,
      y: 512,
      width: 184,
      height: 56,
      stroke: '#C2410C',
      radius: 28,
    }),
    create({
      name: 'hero/menu-link-label',
      type: 'text',
      x: 352,
      y: 528,
      width: 136,
      height: 24,
      text: 'See the menu',
      fontFamily: 'Inter',
      fontSize: 18,
      fontWeight: 600,
      color: '#C2410C',
    }),
    create({
      name: 'hero/badge',
      type: 'ellipse',
      x: 1184,
      y: 128,
      width: 136,
      height: 136,
      fill: '#F97316',
    }),
    create({
      name: 'hero/badge-label',
      type: 'text',
      x: 1200,
      y: 180,
      width: 104,
      height: 32,
      text: 'Fresh daily',
      fontFamily: 'Fraunces',
      fontSize: 20,
      color: '#FFFFFF',
    }),
    align(['hero/headline', 'hero/subhead', 'hero/order'], 'left'),
    align(['hero/order', 'hero/order-label'], 'center'),
    align(['hero/order', 'hero/order-label'], 'middle'),
    align(['hero/menu-link', 'hero/menu-link-label'], 'center'),
    align(['hero/order', 'hero/menu-link'], 'top'),
    align(['hero/badge', 'hero/badge-label'], 'center'),
    update('hero/background', { fill: 'linear-gradient(180deg, #FFF7ED 0%, #FED7AA 100%)' }),
    update('hero/headline', { fontSize: 60, lineHeight: 1.05 }),
    update('hero/photo', { crop: { x: 0.1, y: 0, width: 0.8, height: 1 }, shadow: '0 24px 48px #7C2D1233' }),
    group(
      [
        'hero/background',
        'hero/headline',
        'hero/subhead',
        'hero/photo',
        'hero/order',
        'hero/order-label',
        'hero/menu-link',
        'hero/menu-link-label',
        'hero/badge',
        'hero/badge-label',
      ],
      'Hero',
    ),
  ],
}

const CARDS = [
  { key: 'croissant', name: 'Butter croissant', price: '$3.75', photo: 'assets/menu-croissant.jpg' },
  { key: 'sourdough', name: 'Country sourdough', price: '$8.50', photo: 'assets/menu-sourdough.jpg' },
  { key: 'cinnamon', name: 'Cinnamon roll', price: '$4.25', photo: 'assets/menu-cinnamon.jpg' },
]

const cardShapes = CARDS.flatMap((card, index): TaskStep[] => {
  const x = 120 + index * 416
  return [
    create({
      name: `card/${card.key}`,
      type: 'rect',
      x,
      y: 896,
      width: 368,
      height: 440,
      fill: '#FFFFFF',
      radius: 24,
    }),
    create({
      name: `card/${card.key}/photo`,
      type: 'image',
      x,
      y: 896,
      width: 368,
      height: 256,
      src: card.photo,
    }),
    create({
      name: `card/${card.key}/name`,
      type: 'text',
      x: x + 24,
      y: 1176,
      width: 320,
      height: 32,
      text: card.name,
      fontFamily: 'Fraunces',
      fontSize: 24,
      color: '#431407',
    }),
    create({
      name: `card/${card.key}/price`,
      type: 'text',
      x: x + 24,
      y: 1224,
      width: 120,
      height: 28,
      text: card.price,
      fontFamily: 'Inter',
      fontSize: 20,
      color: '#78350F',
    }),
  ]
})

const menu: TaskPlan = {
  title: 'Menu cards',
  instructions:
    'A "From our ovens" section with three cards side by side: croissant, sourdough and cinnamon roll, each with a photo, a name and a price.',
  announcement: 'Hero is locked. Last section: the three menu cards.',
  report:
    'The menu section is done: a title and three cards (croissant, sourdough, cinnamon roll) with photos and prices.',
  steps: [
    create({
      name: 'menu/title',
      type: 'text',
      x: 120,
      y: 800,
      width: 480,
      height: 56,
      text: 'From our ovens',
      fontFamily: 'Fraunces',
      fontSize: 40,
      color: '#431407',
    }),
    ...cardShapes,
    align(
      CARDS.map((card) => `card/${card.key}`),
      'top',
    ),
    align(
      CARDS.map((card) => `card/${card.key}`),
      'distribute-x',
    ),
    align(
      CARDS.map((card) => `card/${card.key}/name`),
      'top',
    ),
    update('card/croissant', { shadow: '0 8px 24px #43140714' }),
    update('card/sourdough', { shadow: '0 8px 24px #43140714' }),
    update('card/cinnamon', { shadow: '0 8px 24px #43140714' }),
    group(
      [
        'menu/title',
        ...CARDS.flatMap((card) =>
          ['', '/photo', '/name', '/price'].map((part) => `card/${card.key}${part}`),
        ),
      ],
      'Menu',
    ),
  ],
}

/** The three tasks of the project, in order. */
export const TASKS: readonly TaskPlan[] = [header, hero, menu]

/**
 * The ten project-level actions, split into the runs the model does before each task (4, 3 and 3), so
 * that all ten are in the project's view once the third task is closed.
 */
export const PROJECT_STEPS: readonly (readonly ProjectStep[])[] = [
  [
    {
      toolName: 'create_canvas',
      input: { name: 'Acme Bakery — landing page', width: 1440, height: 1600, background: '#FFFFFF' },
    },
    {
      toolName: 'import_palette',
      input: {
        name: 'Acme brand',
        colors: { cream: '#FFF8F0', crust: '#C2410C', ember: '#F97316', cocoa: '#431407', flour: '#FFFFFF' },
      },
    },
    { toolName: 'set_grid', input: { columns: 12, gutter: 24, margin: 120 } },
    { toolName: 'create_layer', input: { name: 'Header' } },
  ],
  [
    { toolName: 'export_preview', input: { layer: 'Header', format: 'png', scale: 1 } },
    { toolName: 'lock_layer', input: { name: 'Header' } },
    { toolName: 'create_layer', input: { name: 'Hero' } },
  ],
  [
    { toolName: 'export_preview', input: { layer: 'Hero', format: 'png', scale: 1 } },
    { toolName: 'lock_layer', input: { name: 'Hero' } },
    { toolName: 'create_layer', input: { name: 'Menu' } },
  ],
]

/** The project the agent opens, and what it says around it. */
export const PROJECT = {
  title: 'Acme Bakery landing page',
  instructions:
    'Desktop landing page, 1440px wide: a header bar, a hero section and three menu cards, in the Acme brand palette.',
  announcement:
    "Happy to. I'll set this up as a project and build it section by section: header, hero, then the menu.",
  report:
    'The landing page is ready on the canvas: header, hero and menu sections, each on its own locked layer.',
}

/** The conversation around the tools: the user's lines in order, and the model's last reply. */
export const CONVERSATION = {
  request:
    'Hi! Can you mock up a landing page for Acme Bakery? A header, a hero with a croissant photo, and three menu cards.',
  afterTask: [
    'The header looks great. Make the hero feel warm — cream and orange tones.',
    'Love it. For the menu, use croissant, sourdough and cinnamon roll.',
  ],
  thanks: 'Perfect, thank you!',
  farewell:
    'You are welcome. The mockup is on the canvas "Acme Bakery — landing page"; the previews are linked in the project.',
}

/** The system prompt the agent runs with. */
export const SYSTEM_PROMPT =
  'You are a design agent. You work on a vector canvas through tools (create_shape, update_shape, align_shapes, group_shapes and project tools). Reuse the shape ids returned by the tools.'
