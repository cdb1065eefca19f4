export type { TokenCounter } from '../tokens/token-counter'
export { type GptEncodingName, type GptTokenizerOptions, gptTokenizer } from './gpt-tokenizer'
