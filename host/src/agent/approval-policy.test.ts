import { describe, expect, it } from 'vitest';
import { isAllowedByRules, ruleForAnswer } from './approval-policy.js';

const shell = (command: string) => ({ kind: 'shell' as const, action: command, command });

describe('approval policy', () => {
  it('an exact-command rule covers only that command', () => {
    const rules = [{ tool: 'shell', command: 'npm test' }];
    expect(isAllowedByRules(rules, 'shell', shell('npm test'))).toBe(true);
    expect(isAllowedByRules(rules, 'shell', shell('npm test -- -u'))).toBe(false);
  });

  it('a prefix rule covers arguments but never a chained command', () => {
    const rules = [{ tool: 'shell', prefix: 'npm test' }];
    expect(isAllowedByRules(rules, 'shell', shell('npm test'))).toBe(true);
    expect(isAllowedByRules(rules, 'shell', shell('npm test -- auth'))).toBe(true);
    expect(isAllowedByRules(rules, 'shell', shell('npm testx'))).toBe(false);
    for (const sneaky of [
      'npm test && rm -rf ~',
      'npm test; rm x',
      'npm test | sh',
      'npm test $(rm x)',
      'npm test `rm x`',
      'npm test > /etc/x',
      'npm test\nrm x',
    ]) {
      expect(isAllowedByRules(rules, 'shell', shell(sneaky)), sneaky).toBe(false);
    }
  });

  it('a tool rule covers that tool only, and never shell', () => {
    const need = { kind: 'write' as const, action: 'Write a' };
    expect(isAllowedByRules([{ tool: 'write_file' }], 'write_file', need)).toBe(true);
    expect(isAllowedByRules([{ tool: 'write_file' }], 'edit_file', need)).toBe(false);
    expect(isAllowedByRules([{ tool: 'shell' }], 'shell', shell('ls'))).toBe(false);
  });

  it('makes rules from answers and checks chosen prefixes', () => {
    expect(ruleForAnswer('shell', shell('make -j4 test'), undefined)).toEqual({
      tool: 'shell',
      command: 'make -j4 test',
    });
    expect(ruleForAnswer('shell', shell('make -j4 test'), 'make')).toEqual({ tool: 'shell', prefix: 'make' });
    expect(ruleForAnswer('shell', shell('make test'), 'npm')).toHaveProperty('error');
    expect(ruleForAnswer('shell', shell('a; b'), 'a;')).toHaveProperty('error');
    expect(ruleForAnswer('edit_file', { kind: 'edit', action: 'x' }, undefined)).toEqual({ tool: 'edit_file' });
    expect(ruleForAnswer('edit_file', { kind: 'edit', action: 'x' }, 'p')).toHaveProperty('error');
  });
});
