import { lstatSync, readdirSync, rmSync, symlinkSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { FuzzWorld } from './fuzz-world.js';

/** What was planted in the share, relative to it: what `tidy` keeps. */
const PLANTED = [
  'readme.txt',
  'sub',
  'sub/a.txt',
  '.tether-private',
  '.tether-private/secret.txt',
  'id_key',
  'docs',
  'docs/innocent.txt',
  'out',
  'canary-link',
  'secret-link',
  'key-link',
  'loop',
];

/**
 * The world the executor fuzz run works in: the folder a machine shares, with what every fuzz
 * world plants, a link to a private file, a link loop, and a second canary in a folder outside;
 * beside it the executor's tasks folder. `check` says what the calls changed among the things
 * none may touch; `roots` and `paths` are what a hostile host might name.
 */
export class ExecutorWorld extends FuzzWorld {
  readonly tasksDir: string;
  private readonly planted: ReadonlySet<string>;

  constructor() {
    super('tether-fuzz-machine-', 'shared');
    this.tasksDir = join(this.base, 'tasks');
    this.plant([
      [join(this.outside, 'canary-dir', 'x.txt'), `${this.canary} in a folder\n`],
      [join(this.shared, 'readme.txt'), 'hello from the shared folder\n'],
      [join(this.shared, 'sub', 'a.txt'), 'alpha\nbeta\n'],
    ]);
    symlinkSync('.tether-private/secret.txt', join(this.shared, 'secret-link'));
    symlinkSync('loop', join(this.shared, 'loop'));
    mkdirSync(this.tasksDir, { recursive: true });
    this.planted = new Set(PLANTED.map((path) => join(this.shared, path)));
    this.guard([
      join(this.outside, 'canary.txt'),
      join(this.outside, 'canary-dir', 'x.txt'),
      join(this.privateDir, 'secret.txt'),
      this.privateFile,
    ]);
  }

  /** The folder the machine shares. */
  get shared(): string {
    return this.folder;
  }

  /** What changed, after `methods`, among the canary, the private files and the folders around the share. */
  check(methods: string): string[] {
    return this.changes().map(({ path, gone }) => {
      if (gone !== undefined) return `after ${methods}: ${path} is gone (${gone})`;
      if (path === this.base) return `after ${methods}: the folder around the share changed`;
      if (path === this.outside) return `after ${methods}: the outside folder changed`;
      return `after ${methods}: ${path} changed`;
    });
  }

  /** Removes what the calls wrote inside the share (a long run would fill the disk), keeping what was planted. */
  tidy(): void {
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (!this.planted.has(path)) rmSync(path, { recursive: true, force: true });
        else if (lstatSync(path).isDirectory()) walk(path);
      }
    };
    walk(this.shared);
  }

  /** Roots a hostile host might name: the share, inside it, through a link out, outside, odd text. */
  roots(): string[] {
    const s = this.shared;
    return [
      s,
      s,
      s,
      join(s, 'sub'),
      join(s, 'out'),
      join(s, 'out', 'canary-dir'),
      this.outside,
      this.base,
      '/',
      '/etc',
      this.privateDir,
      join(s, 'docs'),
      join(s, 'loop'),
      `${s}/../outside`,
      'shared',
      '',
      `${s}\u0000`,
      join(s, 'sub', '..', '..'),
    ];
  }

  paths(): string[] {
    const s = this.shared;
    return [
      'readme.txt',
      'sub/a.txt',
      'sub',
      '.',
      '',
      '../outside/canary.txt',
      join(this.outside, 'canary.txt'),
      'out/canary.txt',
      'out',
      'out/canary-dir/x.txt',
      'canary-link',
      'secret-link',
      'key-link',
      '.tether-private/secret.txt',
      '.tether-private',
      'id_key',
      'docs/innocent.txt',
      'docs',
      'loop',
      'loop/x',
      'sub/../../outside/canary.txt',
      '/etc/passwd',
      'a\u0000b',
      'x'.repeat(5000),
      '~/.ssh/id_rsa',
      'sub/./a.txt',
      'new/dir/file.txt',
      'out/new.txt',
      'canary-link/x',
      join(s, 'readme.txt'),
      join(s, 'id_key'),
      'SUB/A.TXT',
      'sub\\a.txt',
      '..',
      '../',
      '../..',
      'ü/ñ.txt',
      '.tether-private/../id_key',
      'docs/../.tether-private/secret.txt',
    ];
  }
}
