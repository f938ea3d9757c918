import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The folders an ACP fuzz run works in: a session folder with ordinary files, a private folder
 * and a private file (on the context's private list), a hard link to a private file under an
 * innocent name, links that lead out; and beside it a folder with a canary file. `check` says
 * what changed since `plant` among the things no agent may touch.
 */
export class AcpWorld {
  readonly base: string;
  readonly session: string;
  readonly outside: string;
  readonly privateDir: string;
  readonly privateFile: string;
  readonly canary = `CANARY-${Math.random().toString(36).slice(2)}`;
  readonly secret = `SECRET-${Math.random().toString(36).slice(2)}`;
  private guarded: { path: string; text: string; mtimeMs: number }[] = [];
  private baseListing = '';
  private outsideListing = '';

  constructor() {
    this.base = realpathSync(mkdtempSync(join(tmpdir(), 'tether-fuzz-acp-')));
    this.session = join(this.base, 'session');
    this.outside = join(this.base, 'outside');
    this.privateDir = join(this.session, '.tether-private');
    this.privateFile = join(this.session, 'id_key');
    this.plant();
  }

  private plant(): void {
    const file = (path: string, text: string) => {
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text);
    };
    file(join(this.outside, 'canary.txt'), `${this.canary}\n`);
    file(join(this.session, 'readme.txt'), 'hello\nfrom the session folder\n');
    file(join(this.session, 'sub', 'a.txt'), 'alpha\n');
    file(join(this.privateDir, 'secret.txt'), `${this.secret}\n`);
    file(this.privateFile, `${this.secret} key\n`);
    mkdirSync(join(this.session, 'docs'), { recursive: true });
    linkSync(join(this.privateDir, 'secret.txt'), join(this.session, 'docs', 'innocent.txt'));
    symlinkSync('../outside', join(this.session, 'out'));
    symlinkSync('../outside/canary.txt', join(this.session, 'canary-link'));
    symlinkSync('id_key', join(this.session, 'key-link'));
    const guard = (path: string) => ({ path, text: readFileSync(path, 'utf8'), mtimeMs: statSync(path).mtimeMs });
    this.guarded = [
      guard(join(this.outside, 'canary.txt')),
      guard(join(this.privateDir, 'secret.txt')),
      guard(this.privateFile),
    ];
    this.baseListing = readdirSync(this.base).sort().join('\n');
    this.outsideListing = readdirSync(this.outside).sort().join('\n');
  }

  /** What changed among the things no agent may touch; empty when nothing did. */
  check(): string[] {
    const changed: string[] = [];
    for (const g of this.guarded) {
      try {
        if (readFileSync(g.path, 'utf8') !== g.text || statSync(g.path).mtimeMs !== g.mtimeMs) changed.push(g.path);
      } catch {
        changed.push(`${g.path} (gone)`);
      }
    }
    if (readdirSync(this.base).sort().join('\n') !== this.baseListing) changed.push(this.base);
    if (readdirSync(this.outside).sort().join('\n') !== this.outsideListing) changed.push(this.outside);
    return changed;
  }

  /** Whether `text` holds the canary or a private file's text. */
  leaks(text: string): boolean {
    return text.includes(this.canary) || text.includes(this.secret);
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

  close(): void {
    rmSync(this.base, { recursive: true, force: true });
  }
}
