declare const __STRATA_CLI_VERSION__: string | undefined

/** The package's version, put in by the build (tsdown.config.ts). */
export const VERSION: string =
  typeof __STRATA_CLI_VERSION__ === 'string' ? __STRATA_CLI_VERSION__ : '0.0.0-source'
