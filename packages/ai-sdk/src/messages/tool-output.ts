import type {
  LanguageModelV4ToolResultOutput,
  SharedV4FileData,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider'
import type { FilePart, JsonObject, JsonValue, ToolResultPart } from '@strata-memory/core'
import { plainJson } from '@strata-memory/core'
import type { AiSdkPartMeta } from './ai-sdk-meta'
import { fileDataOf, providerFileData } from './file-data'

/** A provider tool output as core's output (any JSON), with its kind kept in meta when needed. */
export function outputOf(output: LanguageModelV4ToolResultOutput): {
  output: JsonValue
  isError?: boolean
  meta: AiSdkPartMeta
} {
  const providerOptions = 'providerOptions' in output ? output.providerOptions : undefined
  const kind: AiSdkPartMeta =
    providerOptions === undefined ? {} : { outputProviderOptions: plainJson(providerOptions) as JsonObject }
  switch (output.type) {
    case 'text':
      return { output: output.value, meta: kind }
    case 'json':
      // A JSON string would read back as a text output: say which it was.
      return {
        output: plainJson(output.value) as JsonValue,
        meta: typeof output.value === 'string' ? { ...kind, output: 'json' } : kind,
      }
    case 'error-text':
      return { output: output.value, isError: true, meta: kind }
    case 'error-json':
      return {
        output: plainJson(output.value) as JsonValue,
        isError: true,
        meta: typeof output.value === 'string' ? { ...kind, output: 'error-json' } : kind,
      }
    case 'execution-denied':
      return {
        output: output.reason ?? 'The tool call was denied.',
        isError: true,
        meta: {
          ...kind,
          output: 'execution-denied',
          ...(output.reason === undefined ? {} : { reason: output.reason }),
        },
      }
    case 'content':
      return {
        output: output.value.map((entry) =>
          entry.type === 'file'
            ? (plainJson({ ...entry, data: fileDataOf(entry.data) }) as unknown as JsonObject)
            : (plainJson(entry) as JsonObject),
        ),
        meta: { ...kind, output: 'content' },
      }
  }
}

/** Core's tool output as the provider's typed output, as it was given. */
export function providerOutput(part: ToolResultPart, meta: AiSdkPartMeta): LanguageModelV4ToolResultOutput {
  const providerOptions = meta.outputProviderOptions as SharedV4ProviderOptions | undefined
  const extra = providerOptions === undefined ? {} : { providerOptions }
  const kind =
    meta.output ??
    (part.isError === true
      ? typeof part.output === 'string'
        ? 'error-text'
        : 'error-json'
      : typeof part.output === 'string'
        ? 'text'
        : 'json')
  switch (kind) {
    case 'text':
    case 'error-text':
      return {
        type: kind,
        value: typeof part.output === 'string' ? part.output : JSON.stringify(part.output),
        ...extra,
      }
    case 'json':
    case 'error-json':
      return { type: kind, value: part.output, ...extra }
    case 'execution-denied':
      return {
        type: 'execution-denied',
        ...(meta.reason === undefined ? {} : { reason: meta.reason }),
        ...extra,
      }
    case 'content': {
      const entries = (Array.isArray(part.output) ? part.output : []) as JsonObject[]
      return {
        type: 'content',
        value: entries.map((entry) => {
          if (entry.type !== 'file') return entry as { type: 'text'; text: string }
          const { data, meta: fileMeta } = entry.data as unknown as { data: string; meta: AiSdkPartMeta }
          const file = { type: 'file', mediaType: String(entry.mediaType), data } as FilePart
          return { ...entry, data: providerFileData(file, fileMeta) } as unknown as {
            type: 'file'
            data: SharedV4FileData
            mediaType: string
          }
        }),
        ...extra,
      }
    }
  }
}
