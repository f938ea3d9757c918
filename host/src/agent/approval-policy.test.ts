import { describe, expect, it } from 'vitest';
import { isAllowedByRules, ruleForAnswer } from './approval-policy.js';
import { ARGUMENTS_THAT_RUN_CODE } from './prefix-rule.js';

const shell = (command: string) => ({ kind: 'shell' as const, action: command, command });
const covers = (prefix: string, command: string) =>
  isAllowedByRules([{ tool: 'shell', prefix }], 'shell', shell(command));
const offer = (command: string, prefix: string) => ruleForAnswer('shell', shell(command), prefix);

describe('approval policy', () => {
  it('an exact-command rule covers only that command', () => {
    const rules = [{ tool: 'shell', command: 'npm test' }];
    expect(isAllowedByRules(rules, 'shell', shell('npm test'))).toBe(true);
    expect(isAllowedByRules(rules, 'shell', shell('npm test -- -u'))).toBe(false);
  });

  it('a prefix rule covers arguments but never a chained command', () => {
    expect(covers('npm test', 'npm test')).toBe(true);
    expect(covers('npm test', 'npm test -- auth')).toBe(true);
    expect(covers('npm test', 'npm testx')).toBe(false);
    for (const sneaky of [
      'npm test && rm -rf ~',
      'npm test; rm x',
      'npm test | sh',
      'npm test $(rm x)',
      'npm test `rm x`',
      'npm test > /etc/x',
      'npm test\nrm x',
    ]) {
      expect(covers('npm test', sneaky), sneaky).toBe(false);
    }
  });

  it('a tool rule covers that tool only, and never shell', () => {
    const need = { kind: 'write' as const, action: 'Write a' };
    expect(isAllowedByRules([{ tool: 'write_file' }], 'write_file', need)).toBe(true);
    expect(isAllowedByRules([{ tool: 'write_file' }], 'edit_file', need)).toBe(false);
    expect(isAllowedByRules([{ tool: 'shell' }], 'shell', shell('ls'))).toBe(false);
  });

  it('no rule covers a command that brings its own variables, and none is made from one', () => {
    const withEnv = { ...shell('npm test'), env: { NODE_ENV: 'test' } };
    expect(isAllowedByRules([{ tool: 'shell', command: 'npm test' }], 'shell', withEnv)).toBe(false);
    expect(isAllowedByRules([{ tool: 'shell', prefix: 'npm test' }], 'shell', withEnv)).toBe(false);
    expect(ruleForAnswer('shell', withEnv, undefined)).toMatchObject({
      error: expect.stringMatching(/once/) as unknown,
    });
    expect(ruleForAnswer('shell', withEnv, 'npm test')).toHaveProperty('error');
    expect(isAllowedByRules([{ tool: 'shell', command: 'npm test' }], 'shell', { ...withEnv, env: {} })).toBe(true);
  });

  it('makes rules from answers and checks chosen prefixes', () => {
    expect(ruleForAnswer('shell', shell('make -j4 test'), undefined)).toEqual({
      tool: 'shell',
      command: 'make -j4 test',
    });
    expect(offer('make -j4 test', 'make -j4')).toEqual({ tool: 'shell', prefix: 'make -j4' });
    expect(offer('make test', 'npm')).toHaveProperty('error');
    expect(offer('a; b', 'a;')).toHaveProperty('error');
    expect(ruleForAnswer('edit_file', { kind: 'edit', action: 'x' }, undefined)).toEqual({ tool: 'edit_file' });
    expect(ruleForAnswer('edit_file', { kind: 'edit', action: 'x' }, 'p')).toHaveProperty('error');
  });
});

describe('prefix rules cannot be bent into running code', () => {
  it('refuses a bare program (also behind env, sudo, npx or an assignment) as a prefix', () => {
    for (const [command, prefix] of [
      ['git -c core.pager=sh log', 'git'],
      ['make -j4 test', 'make'],
      ['make -j4 test', 'make '],
      ['env FOO=1 npm test', 'env FOO=1 npm'],
      ['sudo rm -rf build', 'sudo rm'],
      ['npx vitest run', 'npx vitest'],
    ]) {
      expect(offer(command!, prefix!), prefix).toMatchObject({
        error: expect.stringMatching(/at least one argument/) as unknown,
      });
    }
  });

  it('a stored rule that names a bare program no longer covers anything', () => {
    expect(covers('git', 'git -c core.pager=sh log')).toBe(false);
    expect(covers('git', 'git log')).toBe(false);
  });

  it('refuses a prefix that ends inside a word of the command', () => {
    expect(offer('npm testing', 'npm test')).toMatchObject({ error: expect.stringMatching(/word/) as unknown });
    expect(offer('git log --oneline', 'git log --one')).toHaveProperty('error');
    expect(offer('git log --oneline', 'git log')).toEqual({ tool: 'shell', prefix: 'git log' });
  });

  it('refuses a prefix that leaves the value of a code-running option open', () => {
    expect(offer("sh -c 'npm test'", 'sh -c')).toMatchObject({ error: expect.stringMatching(/-c/) as unknown });
    expect(offer('git -c core.pager=less log', 'git -c')).toHaveProperty('error');
    expect(offer('node --import ./x.mjs app.js', 'node --import')).toHaveProperty('error');
    // With the value attached, the person saw and fixed it: fine as the prefix's last word.
    expect(offer('make test CC=gcc V=1', 'make test CC=gcc')).toEqual({ tool: 'shell', prefix: 'make test CC=gcc' });
    expect(covers('make test CC=gcc', 'make test CC=gcc V=1')).toBe(false);
  });

  it.each([
    ['git -c: config runs pagers, ssh, aliases', 'git --no-pager', "git --no-pager -c core.pager='sh -c x' log"],
    ['git -c value alone', 'git --no-pager', 'git --no-pager -c alias.l=!sh l'],
    ['git --exec-path', 'git --no-pager', 'git --no-pager --exec-path=/tmp/evil log'],
    ['git clone --upload-pack', 'git clone', 'git clone --upload-pack=/tmp/evil.sh origin'],
    ['git clone -u', 'git clone', 'git clone -u /tmp/evil.sh origin'],
    ['git option abbreviation', 'git clone', 'git clone --upload=/tmp/evil.sh origin'],
    ['git rebase -x', 'git rebase', 'git rebase -x /tmp/evil.sh main'],
    ['git rebase --exec', 'git rebase', 'git rebase --exec=/tmp/evil.sh main'],
    ['git -C another repository', 'git --no-pager', 'git --no-pager -C /tmp/evil status'],
    ['find -exec', 'find .', 'find . -name x -exec sh {} +'],
    ['find -execdir', 'find .', 'find . -execdir rm {} +'],
    ['find -ok', 'find .', 'find . -ok rm {} +'],
    ['find -okdir', 'find .', 'find . -okdir rm {} +'],
    ['find -delete', 'find .', 'find . -delete'],
    ['npm --node-options=--import', 'npm test', 'npm test --node-options=--import=./evil.mjs'],
    ['npm --node-options as two words', 'npm test', 'npm test --node-options --require=./evil.js'],
    ['npm --script-shell', 'npm test', 'npm test --script-shell=/tmp/evil.sh'],
    ['npm --prefix (another project)', 'npm test', 'npm test --prefix /tmp/evil'],
    ['node --import', 'node --test', 'node --test --import=./evil.mjs'],
    ['node --require', 'node --test', 'node --test --require ./evil.js'],
    ['node -r', 'node --test', 'node --test -r ./evil.js'],
    ['node -e', 'node --no-warnings', "node --no-warnings -e 'process.exit'"],
    ['node --eval', 'node --no-warnings', 'node --no-warnings --eval=x'],
    ['node -p', 'node --no-warnings', 'node --no-warnings -p x'],
    ['node --loader', 'node --test', 'node --test --loader=./evil.mjs'],
    ['sh -c', 'bash --norc', "bash --norc -c 'rm -rf ~'"],
    ['bash -ec cluster', 'bash --norc', "bash --norc -ec 'rm -rf ~'"],
    ['python -Bc cluster', 'python3 -B', "python3 -B -Bc 'import os'"],
    ['python -c with its code attached', 'python3 -B', "python3 -B -c'import os'"],
    ['perl -ne cluster', 'perl -w', "perl -w -ne 'system qq{rm -rf ~}'"],
    ['perl -E', 'perl -w', "perl -w -E 'say 1'"],
    ['sed -e (GNU e runs a shell)', 'sed -n', "sed -n -e '1e rm -rf ~' f"],
    ['vitest --config', 'npx vitest run', 'npx vitest run --config ./evil.config.mjs'],
    ['make variable override', 'make test', 'make test SHELL=/tmp/evil.sh'],
    ['make -C another Makefile', 'make test', 'make test -C /tmp/evil'],
    ['ssh -o ProxyCommand=', 'ssh host.example', 'ssh host.example -o ProxyCommand=/tmp/evil.sh'],
    ['quoted option', 'npm test', "npm test '--node-options=--import=./evil.mjs'"],
    ['option split by quotes', 'find .', 'find . -ex""ec sh {} +'],
    ['brace expansion that makes an option', 'find .', 'find . {-exec,sh,{},+}'],
    ['glob that can match a file named like an option', 'rg foo', 'rg foo *'],
    ['unbalanced quote', 'npm test', "npm test 'x"],
  ])('%s asks again', (_, prefix, command) => {
    expect(offer(command, prefix), `the prefix itself is acceptable: ${prefix}`).toEqual({ tool: 'shell', prefix });
    expect(covers(prefix, command)).toBe(false);
  });

  it('still covers ordinary arguments', () => {
    for (const [prefix, command] of [
      ['git log', 'git log --oneline -n 5 -- src'],
      ['find .', "find . -name '*.ts' -type f -newer x -print"],
      ['grep -rn', 'grep -rn TODO src'],
      ['ls -la', 'ls -la src'],
      ['npm test', 'npm test -- auth --reporter=verbose'],
      ['cargo test', 'cargo test --release my_test'],
      ['python3 -m pytest', 'python3 -m pytest tests/test_x.py -k "fast and not slow" -v'],
    ]) {
      expect(covers(prefix!, command!), command).toBe(true);
    }
  });

  it('asks again for some harmless options too: the price of a short list', () => {
    // -x is `git rebase --exec`; for pytest it only means "stop at the first failure".
    expect(covers('python3 -m pytest', 'python3 -m pytest -x')).toBe(false);
    expect(covers('grep -rn', 'grep -rn -e TODO src')).toBe(false);
  });

  it('documents why each pattern is on the list', () => {
    for (const entry of ARGUMENTS_THAT_RUN_CODE) expect(entry.why.length).toBeGreaterThan(20);
  });
});
