import { describe, expect, it } from 'vitest';
import { commandsOf, modelsOf, modesOf } from './acp-offers.js';
import { turnCost, turnUsage } from './acp-usage.js';
import { priceBook } from '../../models/prices.js';

describe('what an agent offers', () => {
  it("reads Claude Code's answer: modes with set_mode, models with set_model", () => {
    // As @zed-industries/claude-code-acp 0.16.2 answers session/new (descriptions shortened).
    const answer = {
      sessionId: 's',
      models: {
        availableModels: [
          { modelId: 'default', name: 'Default (recommended)', description: 'Sonnet 4.5' },
          { modelId: 'opus', name: 'Opus', description: 'Opus 4.6' },
        ],
        currentModelId: 'default',
      },
      modes: {
        currentModeId: 'default',
        availableModes: [
          { id: 'default', name: 'Default', description: 'Standard behavior' },
          { id: 'plan', name: 'Plan Mode', description: 'Planning mode, no actual tool execution' },
        ],
      },
    };
    expect(modesOf(answer)).toEqual({
      choices: [
        { id: 'default', name: 'Default', description: 'Standard behavior' },
        { id: 'plan', name: 'Plan Mode', description: 'Planning mode, no actual tool execution' },
      ],
      current: { id: 'default', name: 'Default' },
      via: 'set_mode',
    });
    expect(modelsOf(answer)?.via).toBe('set_model');
    expect(modelsOf(answer)?.current).toEqual({ id: 'default', name: 'Default (recommended)' });
  });

  it("reads Codex's answer: modes as modes, models as a config option (grouped or not)", () => {
    const answer = {
      modes: {
        currentModeId: 'read-only',
        availableModes: [
          { id: 'read-only', name: 'Read Only' },
          { id: 'auto', name: 'Default' },
        ],
      },
      configOptions: [
        {
          id: 'mode',
          name: 'Approval Preset',
          category: 'mode',
          type: 'select',
          currentValue: 'read-only',
          options: [],
        },
        {
          id: 'model',
          name: 'Model',
          category: 'model',
          type: 'select',
          currentValue: 'gpt-5.3-codex',
          options: [
            {
              group: 'g',
              name: 'All',
              options: [
                { value: 'gpt-5.4', name: 'gpt-5.4' },
                { value: 'gpt-5.3-codex', name: 'gpt-5.3-codex' },
              ],
            },
          ],
        },
        { id: 'reasoning_effort', category: 'thought_level', type: 'select', currentValue: 'medium', options: [] },
      ],
    };
    expect(modesOf(answer)?.via).toBe('set_mode');
    expect(modelsOf(answer)).toEqual({
      choices: [
        { id: 'gpt-5.4', name: 'gpt-5.4' },
        { id: 'gpt-5.3-codex', name: 'gpt-5.3-codex' },
      ],
      current: { id: 'gpt-5.3-codex', name: 'gpt-5.3-codex' },
      via: 'config:model',
    });
    expect(modesOf({ configOptions: answer.configOptions.slice(0, 1) })?.via).toBe('config:mode');
  });

  it('takes nothing from an answer that offers nothing, or garbage', () => {
    expect(modesOf({ sessionId: 's' })).toBeUndefined();
    expect(modelsOf(null)).toBeUndefined();
    expect(modesOf({ modes: { currentModeId: 3, availableModes: 'x' } })).toBeUndefined();
  });

  it('bounds what a hostile agent says: long ids left out, names cut to one line, lists cut', () => {
    const modes = modesOf({
      modes: {
        currentModeId: 'x'.repeat(201),
        availableModes: [
          { id: 'x'.repeat(201), name: 'too long an id' },
          { id: 'ok', name: `line one\nline two ${'y'.repeat(200)}` },
          'not an object',
          { id: 'ok', name: 'a second ok is left out' },
          ...Array.from({ length: 100 }, (_, i) => ({ id: `m${i}` })),
        ],
      },
    })!;
    expect(modes.current).toBeUndefined();
    expect(modes.choices[0]!.id).toBe('ok');
    expect(modes.choices[0]!.name).toHaveLength(100);
    expect(modes.choices[0]!.name.startsWith('line one line two')).toBe(true);
    expect(modes.choices).toHaveLength(32);
    expect(modes.choices[1]).toEqual({ id: 'm0', name: 'm0' });
  });

  it("lists an agent's commands: a leading slash taken off, names that are no command's left out", () => {
    expect(
      commandsOf([
        { name: '/review', description: 'Review the changes', input: { hint: '[branch]' } },
        { name: 'memory show', description: 'Shows the memory' },
        { name: 'bad name!', description: 'x' },
        { name: 'review', description: 'a repeat' },
        { description: 'no name' },
        { name: 'x'.repeat(65), description: 'too long' },
      ]),
    ).toEqual([
      { name: 'review', description: 'Review the changes', hint: '[branch]', source: 'agent' },
      { name: 'memory show', description: 'Shows the memory', source: 'agent' },
    ]);
    expect(commandsOf(Array.from({ length: 500 }, (_, i) => ({ name: `c${i}`, description: '' })))).toHaveLength(200);
  });
});

describe('what a turn used, where the agent says', () => {
  it("reads ACP's usage and Gemini CLI's quota, and nothing else", () => {
    expect(turnUsage({ stopReason: 'end_turn', usage: { totalTokens: 12, inputTokens: 10, outputTokens: 2 } })).toEqual(
      {
        inputTokens: 10,
        outputTokens: 2,
        models: [],
      },
    );
    const quota = { input_tokens: 25, output_tokens: 5 };
    expect(
      turnUsage({
        stopReason: 'end_turn',
        _meta: { quota: { token_count: quota, model_usage: [{ model: 'gemini-2.5-pro', token_count: quota }] } },
      }),
    ).toEqual({
      inputTokens: 25,
      outputTokens: 5,
      models: [{ model: 'gemini-2.5-pro', inputTokens: 25, outputTokens: 5 }],
    });
    expect(turnUsage({ stopReason: 'end_turn' })).toBeUndefined();
    expect(turnUsage({ usage: { inputTokens: -1, outputTokens: 2 } })).toBeUndefined();
    expect(turnUsage({ usage: { inputTokens: 1e20, outputTokens: 2 } })).toBeUndefined();
  });

  it('prices a turn only where every model it used has a price', () => {
    const book = priceBook(
      new Map([
        ['gemini-2.5-pro', { inputPerMTok: 1.25, outputPerMTok: 10, asOf: '2026-12-01', source: 'config' as const }],
      ]),
    );
    const usage = { inputTokens: 1_000_000, outputTokens: 0, models: [] };
    expect(turnCost(usage, book, 'gemini-2.5-pro')).toEqual({ costUsd: 1.25 });
    expect(turnCost(usage, book, undefined)).toEqual({ unpriced: true });
    expect(
      turnCost(
        {
          ...usage,
          models: [
            { model: 'gemini-2.5-pro', inputTokens: 1, outputTokens: 1 },
            { model: 'unknown', inputTokens: 1, outputTokens: 1 },
          ],
        },
        book,
        undefined,
      ),
    ).toEqual({ unpriced: true });
  });
});
