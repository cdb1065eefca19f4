import { describe, expect, it } from 'vitest'
import { appModel, modelName } from './model'
import { ScriptedAgentModel } from './scripted-agent'

describe('the model of the app', () => {
  it('is the offline scripted agent without provider keys', () => {
    expect(appModel({})).toBeInstanceOf(ScriptedAgentModel)
    expect(modelName({})).toBe('scripted (offline)')
  })

  it('is OpenAI with OPENAI_API_KEY, Anthropic with ANTHROPIC_API_KEY (no call is made)', () => {
    const openai = appModel({ OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'gpt-test' })
    expect(openai.provider).toMatch(/^openai/)
    expect(openai.modelId).toBe('gpt-test')
    expect(modelName({ OPENAI_API_KEY: 'sk-test' })).toMatch(/^openai:/)
    const anthropic = appModel({ ANTHROPIC_API_KEY: 'sk-ant-test' })
    expect(anthropic.provider).toMatch(/^anthropic/)
    expect(modelName({ ANTHROPIC_API_KEY: 'sk-ant-test' })).toMatch(/^anthropic:/)
  })
})
