export { type ResolvedWaterfall, resolveWaterfall, type WaterfallOptions } from './waterfall-options'
export {
  planWaterfall,
  type WaterfallPlan,
  type WaterfallPlanOptions,
  waterfallTrigger,
} from './waterfall-plan'
export { waterfallPolicy } from './waterfall-policy'
