import type { JsonObject, JsonValue } from '@strata-memory/core'
import type { AlignMode } from './landing-page-plan.ts'

/** What a tool returns: its output, and whether it failed. */
export interface ToolOutcome {
  output: JsonObject
  isError: boolean
}

/** A simulated vector canvas that executes the agent's tools, deterministically and offline. */
export interface CanvasTools {
  execute(toolName: string, input: JsonValue): ToolOutcome
  /** How many shapes the canvas holds. */
  readonly shapeCount: number
}

interface Shape {
  id: string
  name: string
  type: string
  layer: string
  x: number
  y: number
  width: number
  height: number
  style: JsonObject
}

class ToolInputError extends Error {}

const asObject = (input: JsonValue): JsonObject => {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ToolInputError('input must be an object')
  }
  return input
}

const stringField = (input: JsonObject, field: string): string => {
  const value = input[field]
  if (typeof value !== 'string') throw new ToolInputError(`${field} must be a string`)
  return value
}

const numberField = (input: JsonObject, field: string, fallback?: number): number => {
  const value = input[field] ?? fallback
  if (typeof value !== 'number') throw new ToolInputError(`${field} must be a number`)
  return value
}

const stringList = (input: JsonObject, field: string): string[] => {
  const value = input[field]
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) {
    throw new ToolInputError(`${field} must be an array of strings`)
  }
  return value as string[]
}

const bounds = (shape: Shape) => ({ x: shape.x, y: shape.y, width: shape.width, height: shape.height })

const GEOMETRY = new Set(['x', 'y', 'width', 'height'])
const SHAPE_FIELDS = new Set(['name', 'type', ...GEOMETRY])

/** Creates an empty canvas and the tools that work on it. */
export function createCanvasTools(): CanvasTools {
  const shapes = new Map<string, Shape>()
  const layers: { name: string; locked: boolean }[] = []
  let canvas: { id: string; width: number; height: number } | undefined
  let nextShape = 1
  let nextGroup = 1

  const shapeById = (id: string): Shape => {
    const shape = shapes.get(id)
    if (shape === undefined) throw new ToolInputError(`no shape with id '${id}'`)
    const layer = layers.find((entry) => entry.name === shape.layer)
    if (layer?.locked) throw new ToolInputError(`shape '${id}' is on the locked layer '${shape.layer}'`)
    return shape
  }

  const activeLayer = () => {
    const layer = layers.at(-1)
    if (canvas === undefined || layer === undefined)
      throw new ToolInputError('create a canvas and a layer first')
    return layer
  }

  const align = (ids: string[], mode: AlignMode): JsonObject => {
    const targets = ids.map(shapeById)
    if (targets.length < 2) throw new ToolInputError('align at least two shapes')
    const left = Math.min(...targets.map((shape) => shape.x))
    const right = Math.max(...targets.map((shape) => shape.x + shape.width))
    const top = Math.min(...targets.map((shape) => shape.y))
    const bottom = Math.max(...targets.map((shape) => shape.y + shape.height))
    // Alignment is relative to the first shape, as in most design tools' "align to key object".
    const key = targets[0]!
    if (mode === 'distribute-x' || mode === 'distribute-y') {
      const horizontal = mode === 'distribute-x'
      const sorted = [...targets].sort((a, b) => (horizontal ? a.x - b.x : a.y - b.y))
      const span = horizontal ? right - left : bottom - top
      const used = sorted.reduce((sum, shape) => sum + (horizontal ? shape.width : shape.height), 0)
      const gap = Math.round((span - used) / (sorted.length - 1))
      let cursor = horizontal ? left : top
      for (const shape of sorted) {
        if (horizontal) shape.x = cursor
        else shape.y = cursor
        cursor += (horizontal ? shape.width : shape.height) + gap
      }
    } else {
      for (const shape of targets) {
        if (mode === 'left') shape.x = key.x
        if (mode === 'right') shape.x = key.x + key.width - shape.width
        if (mode === 'center') shape.x = Math.round(key.x + (key.width - shape.width) / 2)
        if (mode === 'top') shape.y = key.y
        if (mode === 'bottom') shape.y = key.y + key.height - shape.height
        if (mode === 'middle') shape.y = Math.round(key.y + (key.height - shape.height) / 2)
      }
    }
    return { align: mode, moved: targets.map((shape) => ({ id: shape.id, x: shape.x, y: shape.y })) }
  }

  const tools: Record<string, (input: JsonObject) => JsonObject> = {
    create_canvas(input) {
      canvas = { id: 'canvas_1', width: numberField(input, 'width'), height: numberField(input, 'height') }
      return {
        canvasId: canvas.id,
        name: stringField(input, 'name'),
        width: canvas.width,
        height: canvas.height,
      }
    },
    import_palette(input) {
      const colors = asObject(input.colors ?? null)
      return { palette: stringField(input, 'name'), swatches: Object.keys(colors), contrastWarnings: [] }
    },
    set_grid(input) {
      const width = canvas?.width ?? 1440
      const columns = numberField(input, 'columns')
      const gutter = numberField(input, 'gutter')
      const margin = numberField(input, 'margin')
      const columnWidth = (width - 2 * margin - (columns - 1) * gutter) / columns
      return { columns, gutter, margin, columnWidth: Math.round(columnWidth * 100) / 100 }
    },
    create_layer(input) {
      const name = stringField(input, 'name')
      layers.push({ name, locked: false })
      return { layerId: `layer_${layers.length}`, name, active: true, layers: layers.length }
    },
    lock_layer(input) {
      const name = stringField(input, 'name')
      const layer = layers.find((entry) => entry.name === name)
      if (layer === undefined) throw new ToolInputError(`no layer named '${name}'`)
      layer.locked = true
      const count = [...shapes.values()].filter((shape) => shape.layer === name).length
      return { name, locked: true, shapes: count }
    },
    export_preview(input) {
      const name = stringField(input, 'layer')
      const onLayer = [...shapes.values()].filter((shape) => shape.layer === name)
      if (onLayer.length === 0) throw new ToolInputError(`layer '${name}' has no shapes to export`)
      const height =
        Math.max(...onLayer.map((shape) => shape.y + shape.height)) -
        Math.min(...onLayer.map((shape) => shape.y))
      const scale = numberField(input, 'scale', 1)
      return {
        url: `preview://${canvas?.id}/${name.toLowerCase()}@${scale}x.png`,
        width: (canvas?.width ?? 0) * scale,
        height: height * scale,
        shapes: onLayer.length,
      }
    },
    create_shape(input) {
      const layer = activeLayer()
      const style: JsonObject = {}
      for (const [key, value] of Object.entries(input)) if (!SHAPE_FIELDS.has(key)) style[key] = value
      const shape: Shape = {
        id: `shape_${String(nextShape++).padStart(3, '0')}`,
        name: stringField(input, 'name'),
        type: stringField(input, 'type'),
        layer: layer.name,
        x: numberField(input, 'x'),
        y: numberField(input, 'y'),
        width: numberField(input, 'width'),
        height: numberField(input, 'height'),
        style,
      }
      shapes.set(shape.id, shape)
      return { id: shape.id, name: shape.name, type: shape.type, layer: shape.layer, bounds: bounds(shape) }
    },
    update_shape(input) {
      const shape = shapeById(stringField(input, 'id'))
      const changes = asObject(input.changes ?? null)
      for (const [key, value] of Object.entries(changes)) {
        if (GEOMETRY.has(key) && typeof value === 'number')
          shape[key as 'x' | 'y' | 'width' | 'height'] = value
        else shape.style[key] = value
      }
      return { id: shape.id, name: shape.name, updated: Object.keys(changes), bounds: bounds(shape) }
    },
    align_shapes(input) {
      return align(stringList(input, 'ids'), stringField(input, 'align') as AlignMode)
    },
    group_shapes(input) {
      const members = stringList(input, 'ids').map(shapeById)
      const left = Math.min(...members.map((shape) => shape.x))
      const top = Math.min(...members.map((shape) => shape.y))
      const right = Math.max(...members.map((shape) => shape.x + shape.width))
      const bottom = Math.max(...members.map((shape) => shape.y + shape.height))
      return {
        groupId: `group_${nextGroup++}`,
        name: stringField(input, 'name'),
        shapes: members.length,
        bounds: { x: left, y: top, width: right - left, height: bottom - top },
      }
    },
  }

  return {
    execute(toolName, input) {
      const tool = Object.hasOwn(tools, toolName) ? tools[toolName] : undefined
      if (tool === undefined) return { output: { error: `unknown tool '${toolName}'` }, isError: true }
      try {
        return { output: tool(asObject(input)), isError: false }
      } catch (error) {
        if (error instanceof ToolInputError) return { output: { error: error.message }, isError: true }
        throw error
      }
    },
    get shapeCount() {
      return shapes.size
    },
  }
}
