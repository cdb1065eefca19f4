import type {
  LanguageModelV4ToolResultOutput,
  SharedV4FileData,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider'
import type { FilePart, JsonObject, JsonValue, ToolResultPart } from '@strata-memory/core'
import { jsonCopy, plainJson } from '@strata-memory/core'
import { fromToolOutput, toolOutputKind, toToolOutput } from '@strata-memory/core/adapter-kit'
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
    case 'json':
    case 'error-text':
    case 'error-json': {
      // A JSON string would read back as a text output: the kit says which it was.
      const { output: value, isError, kind: kept } = fromToolOutput(output)
      return {
        output: value,
        ...(isError === undefined ? {} : { isError }),
        meta: kept === undefined ? kind : { ...kind, output: kept },
      }
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
  const extra = providerOptions === undefined ? {} : { providerOptions: jsonCopy(providerOptions) }
  const kind = toolOutputKind(part, meta.output)
  switch (kind) {
    case 'text':
    case 'error-text':
    case 'json':
    case 'error-json':
      return { ...toToolOutput(part, kind), ...extra } as LanguageModelV4ToolResultOutput
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
