import { describe, expect, it } from 'vitest';
import {
  INERT_VARIABLES,
  MAX_AGENT_ENV,
  VARIABLES_THAT_LOAD_CODE,
  allowedText,
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
    // Even when the person named it for the agent: no approval could show what it runs.
    const checked = checkAgentEnv(vars(['CI', '1'], [name, 'x']), new Set([name]));
    expect(checked).toMatchObject({ ok: false, reason: 'loads-code' });
    expect(checked.ok ? '' : checked.message).toContain(`${name} is refused: `);
  });

  // A second review found each of these accepted (shown, but no person can know they run code):
  // `TAR_OPTIONS=--to-command=…`, `CC=./x.sh`, `CONFIG_SITE=./x.sh` (configure sources it), …
  it.each([
    'TAR_OPTIONS',
    'CC',
    'CONFIG_SITE',
    'RUSTFLAGS',
    'GOENV',
    'JAVA_OPTS',
    'YARN_YARN_PATH',
    'BUNDLE_GEMFILE',
    'PYTEST_ADDOPTS',
    'HGRCPATH',
    'WGETRC',
    'GRADLE_USER_HOME',
    'GREETING',
    'NODE_ENV',
  ])('refuses %s, which is not known to be inert, and says how the person allows it', (name) => {
    const checked = checkAgentEnv(vars(['CI', '1'], [name, './x.sh']));
    expect(checked).toMatchObject({ ok: false, reason: 'not-inert', name });
    expect(checked.ok ? '' : checked.message).toContain(`${name} is refused: `);
    expect(checked.ok ? '' : checked.message).toContain(`"allowEnv": ["${name}"]`);
  });

  it('takes a variable the person allowed for the agent, and says so', () => {
    const checked = checkAgentEnv(vars(['CC', 'gcc'], ['CI', '1']), new Set(['CC']));
    expect(checked).toEqual({ ok: true, env: { CC: 'gcc', CI: '1' }, own: { CC: 'gcc', CI: '1' }, markers: {} });
    expect(allowedText(['CC'])).toBe('allowed for this agent in agents.json ("allowEnv"): CC');
    expect(allowedText([])).toBe('');
    // Never one that loads code, whatever the config says (the config refuses to name it, too).
    expect(checkAgentEnv(vars(['BASH_ENV', './x.sh']), new Set(['BASH_ENV']))).toMatchObject({
      ok: false,
      reason: 'loads-code',
    });
  });

  it.each([
    ['CI', 'true'],
    ['TERM', 'xterm-256color'],
    ['NO_COLOR', '1'],
    ['FORCE_COLOR', '0'],
    ['COLUMNS', '120'],
    ['LANG', 'en_US.UTF-8'],
    ['LC_ALL', 'C'],
    ['LANGUAGE', 'en_GB:en'],
    ['TZ', 'Europe/Paris'],
    ['PAGER', 'cat'],
    ['GIT_PAGER', 'cat'],
    ['PYTHONUNBUFFERED', '1'],
  ])('passes %s=%s, known to be inert', (name, value) => {
    expect(checkAgentEnv(vars([name, value]))).toMatchObject({ ok: true, own: { [name]: value } });
  });

  it.each([
    ['LANG', '/tmp/locale'],
    ['LC_ALL', '../x'],
    ['TERM', '../../tmp/terminfo'],
    ['TZ', ':/tmp/zone'],
    ['COLUMNS', '80; rm -rf ~'],
    ['PAGER', 'sh -c x'],
    ['GIT_PAGER', 'less'],
  ])('refuses %s=%s: an inert name with a value that reaches further', (name, value) => {
    expect(checkAgentEnv(vars([name, value]))).toMatchObject({ ok: false });
  });

  it('takes inert variables, the last value of a name given twice', () => {
    expect(checkAgentEnv(vars(['TERM', 'dumb'], ['CI', '1'], ['TERM', 'xterm']))).toEqual({
      ok: true,
      env: { TERM: 'xterm', CI: '1' },
      own: { TERM: 'xterm', CI: '1' },
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
    // Any other value, or the name in another case, is no marker: an agent's own variable, refused
    // unless the person allowed it.
    expect(checkAgentEnv(vars(['CLAUDECODE', 'yes']))).toMatchObject({ ok: false, reason: 'not-inert' });
    const allowed = new Set(['CLAUDECODE', 'claudecode']);
    expect(checkAgentEnv(vars(['CLAUDECODE', 'yes']), allowed)).toMatchObject({
      own: { CLAUDECODE: 'yes' },
      markers: {},
    });
    expect(checkAgentEnv(vars(['claudecode', '1']), allowed)).toMatchObject({ own: { claudecode: '1' }, markers: {} });
    expect(markersText({ CLAUDECODE: '1' })).toBe('set by the adapter on every command: CLAUDECODE=1');
    expect(markersText({})).toBe('');
  });

  it('refuses a malformed name (an exported function’s `%%` too) and too many variables', () => {
    expect(checkAgentEnv(vars(['BAD NAME', 'x']))).toMatchObject({ ok: false, reason: 'invalid' });
    expect(checkAgentEnv(vars(['f%%', '() { :; }']))).toMatchObject({ ok: false, reason: 'invalid' });
    expect(checkAgentEnv(vars(['', 'x']))).toMatchObject({ ok: false, reason: 'invalid' });
    const many = Array.from({ length: MAX_AGENT_ENV + 1 }, (): [string, string] => ['CI', 'x']);
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

  it('documents why each variable is on the lists', () => {
    for (const entry of VARIABLES_THAT_LOAD_CODE) expect(entry.why.length, entry.pattern).toBeGreaterThan(20);
    for (const entry of INERT_VARIABLES) expect(entry.why.length, entry.pattern).toBeGreaterThan(20);
  });
});
