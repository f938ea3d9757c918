import { describe, expect, it } from 'vitest';
import { parseCommand } from './slash-commands.js';

describe('a slash command as typed', () => {
  it('is one word after / and what follows it', () => {
    expect(parseCommand('/compact')).toEqual({ name: 'compact', args: '' });
    expect(parseCommand('  /model   openai:gpt-5.4 ')).toEqual({ name: 'model', args: 'openai:gpt-5.4' });
    expect(parseCommand('/review-pr 12\nand the tests')).toEqual({ name: 'review-pr', args: '12\nand the tests' });
  });

  it('is text when it is a path, a double slash, or no word', () => {
    expect(parseCommand('/etc/hosts is missing a line')).toBeUndefined();
    expect(parseCommand('//compact')).toBeUndefined();
    expect(parseCommand('/')).toBeUndefined();
    expect(parseCommand('/ compact')).toBeUndefined();
    expect(parseCommand('please /compact')).toBeUndefined();
    expect(parseCommand(`/${'a'.repeat(65)}`)).toBeUndefined();
  });
});
