export { runCli } from './cli/run-cli'
export { defineConfig, type StrataConfig } from './config/strata-config'
