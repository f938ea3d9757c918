import { toBase64Url } from '@tether/shared-protocol';
import type { ExecutorWorld } from './executor-world.js';
import type { FuzzKit } from './fuzz-kit.js';

/**
 * A method of the machine protocol and hostile params for it, over `world`: paths and roots that
 * lead out or into the private list half the time, ids that are empty, long or a path, numbers
 * out of range, and a few names that are no method at all. Commands are few and always `pwd`, so
 * the run can see where they ran.
 */
export function hostileCall(k: FuzzKit, world: ExecutorWorld): [string, unknown] {
  // Half the time a plain value, so calls get past the first check and reach the later ones.
  const root = () => (k.chance(0.5) ? world.shared : k.pick(world.roots()));
  const path = () =>
    k.chance(0.5) ? k.pick(['readme.txt', 'sub/a.txt', 'sub', '.', 'docs', 'new.txt']) : k.pick(world.paths());
  const id = () => k.pick(['p_1', 'p_2', `p_${k.int(1000)}`, '', 'x'.repeat(300), '../p']);
  const roll = k.random();
  if (roll < 0.2)
    return [
      'fs.read',
      {
        root: root(),
        path: path(),
        maxBytes: k.chance(0.9) ? k.pick([0, 10, 4096, 2 * 1024 * 1024]) : k.pick([-1, 1.5, 1e12]),
      },
    ];
  if (roll < 0.3) return ['fs.write', { root: root(), path: path(), text: k.pick(['fuzz', '', 'x\n'.repeat(50)]) }];
  if (roll < 0.42)
    return ['fs.list', { root: root(), path: path(), maxEntries: k.chance(0.9) ? k.pick([1, 100, 10_000]) : 0 }];
  if (roll < 0.52) return ['fs.stat', { root: root(), path: path() }];
  if (roll < 0.64) return ['fs.realPath', { root: root(), path: path() }];
  if (roll < 0.72) return ['fs.checkFolder', { path: root() }];
  if (roll < 0.8) {
    const query = {
      pattern: k.pick(['CANARY', 'SECRET', 'alpha', '.', '(a+)+$', '[']),
      regex: k.chance(0.5),
      caseSensitive: k.chance(0.5),
      ...(k.chance(0.5) ? { path: path() } : {}),
      maxResults: k.pick([1, 100, 10_000]),
    };
    return ['fs.search', { root: root(), query }];
  }
  if (roll < 0.88) return ['fs.listDirs', k.chance(0.2) ? {} : { path: root() }];
  if (roll < 0.9) return ['machine.ping', k.chance(0.5) ? {} : { x: 1 }];
  if (roll < 0.93)
    return [
      'pty.spawn',
      {
        ptyId: id(),
        ...(k.chance(0.7) ? { cwd: k.pick([...world.roots(), ...world.paths()]) } : {}),
        cols: 80,
        rows: 24,
      },
    ];
  if (roll < 0.95)
    return [
      k.pick([
        'proc.write',
        'proc.kill',
        'proc.closeInput',
        'pty.write',
        'pty.resize',
        'pty.kill',
        'exec.cancel',
        'tasks.kill',
        'tasks.read',
      ]),
      {
        procId: id(),
        ptyId: id(),
        callId: id(),
        taskId: id(),
        data: toBase64Url(k.bytes(8)),
        cols: 10,
        rows: 10,
        offset: 0,
        maxBytes: 10,
      },
    ];
  // Commands are few: each starts a real process (`pwd`, to see where it ran).
  if (roll < 0.955) return ['tasks.list', {}];
  if (roll < 0.96)
    return [
      'exec.run',
      { callId: `x_${k.int(1e9)}`, command: 'pwd', cwd: root(), timeoutMs: 5000, maxOutputBytes: 4096 },
    ];
  if (roll < 0.965)
    return [
      'proc.spawn',
      {
        procId: `p_${k.int(1e9)}`,
        command: k.chance(0.5) ? { program: 'pwd', args: [] } : { shell: 'pwd' },
        cwd: k.pick([...world.roots(), ...world.paths()]),
        ...(k.chance(0.5) ? { root: root() } : {}),
      },
    ];
  if (roll < 0.967) return ['tasks.start', { command: 'pwd', cwd: root() }];
  return [k.pick(['fs.delete', 'machine.register', '__proto__', 'constructor', 'toString', '']), {}];
}
