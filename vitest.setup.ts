import fc from 'fast-check'

// Property tests explore new random inputs on every local run. Under CI they replay one seed, so a
// landing never hangs on a one-in-thousands draw; FC_SEED replays any reported failure locally.
const seed = process.env.FC_SEED ?? (process.env.CI ? '20261122' : undefined)
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) })
