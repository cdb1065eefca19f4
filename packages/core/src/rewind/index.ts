export { type DivergencePoint, divergencePoint, MAX_DIVERGENCE_DEPTH } from './divergence-point'
export { planRewind, type RewindPlan, type RewindRefusal } from './rewind-plan'
