/**
 * The type-only names an entry file exports (`export type { … }` and `type X` inside `export { … }`),
 * sorted, for the packages' public-api tests. Fails on `export *`: an entry names what it exports.
 */
export declare function typeExports(entry: URL): string[];
