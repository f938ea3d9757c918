import { describe, expect, it } from 'vitest';
import {
  MAX_AGENT_ENV,
  VARIABLES_THAT_LOAD_CODE,
  checkAgentEnv,
  envText,
  markersText,
  rowTitle,
} from './acp-command-env.js';

const vars = (...pairs: [string, string][]) => pairs.map(([name, value]) => ({ name, value }));

describe('an ACP agent’s variables for a command', () => {
  it.each([
    'BASH_ENV',
    'ENV',
    'BASH_FUNC_ls',
    'SHELLOPTS',
    'PS4',
    'PROMPT_COMMAND',
    'IFS',
    'LD_PRELOAD',
    'LD_LIBRARY_PATH',
    'ld_preload',
    'DYLD_INSERT_LIBRARIES',
    'NODE_OPTIONS',
    'npm_config_script_shell',
    'PYTHONSTARTUP',
    'PYTHONPATH',
    'PYTHONWARNINGS',
    'PERL5OPT',
    'RUBYOPT',
    'GIT_CONFIG_COUNT',
    'GIT_CONFIG_KEY_0',
    'GIT_SSH_COMMAND',
    'GIT_EXEC_PATH',
    'GIT_DIR',
    'GOFLAGS',
    'PATH',
    'HOME',
    'PAGER',
  ])('refuses %s, which loads code, and says why', (name) => {
    const checked = checkAgentEnv(vars(['HARMLESS', '1'], [name, 'x']));
    expect(checked).toMatchObject({ ok: false, reason: 'loads-code' });
    expect(checked.ok ? '' : checked.message).toContain(`${name} is refused: `);
  });

  it('takes ordinary variables, the last value of a name given twice', () => {
    expect(checkAgentEnv(vars(['NODE_ENV', 'test'], ['CI', '1'], ['NODE_ENV', 'production']))).toEqual({
      ok: true,
      env: { NODE_ENV: 'production', CI: '1' },
      own: { NODE_ENV: 'production', CI: '1' },
      markers: {},
    });
    expect(checkAgentEnv([])).toEqual({ ok: true, env: {}, own: {}, markers: {} });
  });

  it('an adapter’s marker with its one value is set but not the agent’s own; any other value is', () => {
    expect(checkAgentEnv(vars(['CLAUDECODE', '1'], ['CI', '1']))).toEqual({
      ok: true,
      env: { CLAUDECODE: '1', CI: '1' },
      own: { CI: '1' },
      markers: { CLAUDECODE: '1' },
    });
    expect(checkAgentEnv(vars(['CLAUDECODE', 'yes']))).toMatchObject({ own: { CLAUDECODE: 'yes' }, markers: {} });
    expect(checkAgentEnv(vars(['claudecode', '1']))).toMatchObject({ own: { claudecode: '1' }, markers: {} });
    expect(markersText({ CLAUDECODE: '1' })).toBe('set by the adapter on every command: CLAUDECODE=1');
    expect(markersText({})).toBe('');
  });

  it('refuses a malformed name (an exported function’s `%%` too) and too many variables', () => {
    expect(checkAgentEnv(vars(['BAD NAME', 'x']))).toMatchObject({ ok: false, reason: 'invalid' });
    expect(checkAgentEnv(vars(['f%%', '() { :; }']))).toMatchObject({ ok: false, reason: 'invalid' });
    expect(checkAgentEnv(vars(['', 'x']))).toMatchObject({ ok: false, reason: 'invalid' });
    const many = Array.from({ length: MAX_AGENT_ENV + 1 }, (_, i): [string, string] => [`V${i}`, 'x']);
    expect(checkAgentEnv(vars(...many))).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('shows every variable on one line, by name, a value that is not plain as a JSON string', () => {
    expect(envText({})).toBe('');
    expect(envText({ B: 'two words', A: 'plain/path-1.0', C: 'line\nbreak' })).toBe(
      'environment from the agent: A=plain/path-1.0 B="two words" C="line\\nbreak"',
    );
  });

  it('a row title keeps the variables in view when the line is long, within the event’s bound', () => {
    const extra = envText({ GREETING: 'hi' });
    expect(rowTitle('echo hi', extra)).toBe(`echo hi\n${extra}`);
    const long = rowTitle('x'.repeat(5000), extra);
    expect(long.length).toBeLessThanOrEqual(1000);
    expect(long.endsWith(`…\n${extra}`)).toBe(true);
    const huge = rowTitle('echo', envText({ BIG: 'y'.repeat(5000) }));
    expect(huge.length).toBeLessThanOrEqual(1000);
    expect(huge.startsWith('echo\nenvironment from the agent: BIG=')).toBe(true);
  });

  it('documents why each variable is on the list', () => {
    for (const entry of VARIABLES_THAT_LOAD_CODE) expect(entry.why.length, entry.pattern).toBeGreaterThan(20);
  });
});
