import { join } from 'node:path';
import { FuzzWorld } from './fuzz-world.js';

/**
 * The folders an ACP fuzz run works in: a session folder with ordinary files, a private folder
 * and a private file (on the context's private list), a hard link to a private file under an
 * innocent name, links that lead out; and beside it a folder with a canary file. `check` says
 * what changed since planting among the things no agent may touch.
 */
export class AcpWorld extends FuzzWorld {
  constructor() {
    super('tether-fuzz-acp-', 'session');
    this.plant([
      [join(this.session, 'readme.txt'), 'hello\nfrom the session folder\n'],
      [join(this.session, 'sub', 'a.txt'), 'alpha\n'],
    ]);
    this.guard([join(this.outside, 'canary.txt'), join(this.privateDir, 'secret.txt'), this.privateFile]);
  }

  get session(): string {
    return this.folder;
  }

  /** What changed among the things no agent may touch; empty when nothing did. */
  check(): string[] {
    return this.changes().map((c) => (c.gone === undefined ? c.path : `${c.path} (gone)`));
  }

  /** Paths an agent might name: inside, out through `..` and links, private, odd. */
  paths(): string[] {
    const s = this.session;
    return [
      join(s, 'readme.txt'),
      join(s, 'sub', 'a.txt'),
      join(s, 'new.txt'),
      join(s, 'sub', 'new', 'b.txt'),
      join(this.outside, 'canary.txt'),
      join(s, '..', 'outside', 'canary.txt'),
      join(s, 'out', 'canary.txt'),
      join(s, 'out', 'new.txt'),
      join(s, 'canary-link'),
      join(s, 'key-link'),
      join(this.privateDir, 'secret.txt'),
      this.privateFile,
      join(s, 'docs', 'innocent.txt'),
      'readme.txt',
      '../outside/canary.txt',
      '',
      '/etc/passwd',
      `${s}/a\u0000b`,
      s,
      join(s, 'sub'),
      `${s}/${'x'.repeat(300)}`,
    ];
  }
}
