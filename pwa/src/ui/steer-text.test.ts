import type { SessionCommand } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { matchingCommands, modelLabel, spendLine, typingCommand } from './steer-text.js';

const command = (name: string): SessionCommand => ({ name, description: '', source: 'agent' });
const commands = ['compact', 'model', 'mode', 'memory show', 'review'].map(command);

describe('the command list', () => {
  it('matches what is typed: names that start with it first, then names that hold it', () => {
    expect(matchingCommands(commands, '/').map((c) => c.name)).toEqual([
      'compact',
      'model',
      'mode',
      'memory show',
      'review',
    ]);
    expect(matchingCommands(commands, '/mo').map((c) => c.name)).toEqual(['model', 'mode', 'memory show']);
    expect(matchingCommands(commands, '/e').map((c) => c.name)).toEqual(['model', 'mode', 'memory show', 'review']);
    expect(matchingCommands(commands, '/memory s').map((c) => c.name)).toEqual(['memory show']);
    expect(matchingCommands(commands, '/MOD').map((c) => c.name)).toEqual(['model', 'mode']);
    expect(matchingCommands(commands, '/zz')).toEqual([]);
  });

  it('shows while a name is typed, and goes once its arguments are, or for text that is no command', () => {
    expect(typingCommand('/', commands)).toBe(true);
    expect(typingCommand('/memory s', commands)).toBe(true);
    expect(typingCommand('/compact ', commands)).toBe(false);
    expect(typingCommand('/compact keep the tests', commands)).toBe(false);
    expect(typingCommand('//etc', commands)).toBe(false);
    expect(typingCommand('/mode\nmore', commands)).toBe(false);
    expect(typingCommand('hello /mode', commands)).toBe(false);
  });
});

describe('spend in one line', () => {
  const activity = {
    runStartedAt: null,
    runEndedAt: null,
    modelCalls: 0,
    maxModelCalls: 100,
    ownLimit: false,
    toolCalls: 0,
    inputTokens: 12_000,
    outputTokens: 345,
    now: '',
    paused: false,
  };
  it('says tokens, a cost only where priced (marked when some calls had no price), and the budget', () => {
    expect(spendLine({ activity })).toBe('12.3 k tokens');
    expect(spendLine({ activity: { ...activity, costUsd: 0.0456 } })).toBe('12.3 k tokens · $0.0456');
    expect(spendLine({ activity: { ...activity, costUsd: 1.5, unpricedCalls: 2 } })).toBe('12.3 k tokens · $1.50+');
    expect(spendLine({ activity, budget: { tokens: 50_000, usd: 2 } })).toBe('12.3 k tokens of 50.0 k tokens or $2.00');
    expect(
      spendLine({
        activity: { ...activity, inputTokens: 0, outputTokens: 0, unreportedRuns: 1 },
        budget: { tokens: 10 },
      }),
    ).toBe('Spend not reported of 10 tokens');
  });

  it("names the model: the own loop's spec, an agent's own where it says", () => {
    expect(modelLabel({ kind: 'agent', model: 'anthropic:claude-sonnet-5-5' })).toBe('anthropic:claude-sonnet-5-5');
    expect(modelLabel({ kind: 'acp', model: 'claude-code', agentModel: { id: 'haiku', name: 'Haiku' } })).toBe('Haiku');
    expect(modelLabel({ kind: 'acp', model: 'claude-code' })).toBe('its default');
  });
});
