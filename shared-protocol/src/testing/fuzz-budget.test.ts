import { describe, expect, it } from 'vitest';
import { parseFuzzBudget } from './fuzz-budget.js';

describe('fuzz budget', () => {
  it('--inputs N allows exactly N inputs and reports progress by tenths', () => {
    const lines: string[] = [];
    const parsed = parseFuzzBudget(
      ['--inputs', '20'],
      { seconds: 5 },
      () => 0,
      (l) => lines.push(l),
    );
    if (!parsed.ok) throw new Error(parsed.message);
    const { budget } = parsed;
    while (budget.more()) {
      budget.tried++;
      budget.progress('t');
    }
    expect(budget.tried).toBe(20);
    expect(lines).toHaveLength(10);
    expect(lines[9]).toBe('fuzz t: 20 of 20 inputs, 0 s');
  });

  it('--seconds N stops at the deadline; the default applies without either', () => {
    let now = 1000;
    const parsed = parseFuzzBudget([], { seconds: 2 }, () => now);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.budget.more()).toBe(true);
    now = 2999;
    expect(parsed.budget.more()).toBe(true);
    now = 3000;
    expect(parsed.budget.more()).toBe(false);
  });

  it('refuses bad numbers and both limits at once', () => {
    expect(parseFuzzBudget(['--inputs', 'many'], { seconds: 1 })).toMatchObject({ ok: false });
    expect(parseFuzzBudget(['--inputs', '0'], { seconds: 1 })).toMatchObject({ ok: false });
    expect(parseFuzzBudget(['--seconds'], { seconds: 1 })).toMatchObject({ ok: false });
    expect(parseFuzzBudget(['--inputs', '5', '--seconds', '5'], { seconds: 1 })).toMatchObject({ ok: false });
  });
});
