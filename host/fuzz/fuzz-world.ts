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
import { describe } from './fuzz-kit.js';

/** A guarded path that changed since it was planted; `gone` says why a file can no longer be read. */
export interface WorldChange {
  path: string;
  gone: string | undefined;
}

/**
 * The folders a fuzz run works in, in a temporary folder of their own: the run's folder with
 * ordinary files, a private folder and a private file (for the private list), a hard link to a
 * private file under an innocent name, and links that lead out; beside it a folder with a canary.
 * `guard` notes what no input may touch; `changes` says what of it changed since.
 */
export class FuzzWorld {
  readonly base: string;
  /** The folder the run works in (a session's, or the share a machine lends). */
  readonly folder: string;
  readonly outside: string;
  readonly privateDir: string;
  readonly privateFile: string;
  readonly canary = `CANARY-${Math.random().toString(36).slice(2)}`;
  readonly secret = `SECRET-${Math.random().toString(36).slice(2)}`;
  private guarded: { path: string; text: string; mtimeMs: number }[] = [];
  private baseListing = '';
  private outsideListing = '';

  constructor(prefix: string, folderName: string) {
    this.base = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    this.folder = join(this.base, folderName);
    this.outside = join(this.base, 'outside');
    this.privateDir = join(this.folder, '.tether-private');
    this.privateFile = join(this.folder, 'id_key');
  }

  /** Writes `text` to `path`, making its folder first. */
  protected file(path: string, text: string): void {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  }

  /**
   * The canary, then `ordinary` files ([path, text]), then the private files, the hard link to
   * the secret (`docs/innocent.txt`) and the links out (`out`, `canary-link`, `key-link`).
   */
  protected plant(ordinary: [string, string][]): void {
    this.file(join(this.outside, 'canary.txt'), `${this.canary}\n`);
    for (const [path, text] of ordinary) this.file(path, text);
    this.file(join(this.privateDir, 'secret.txt'), `${this.secret}\n`);
    this.file(this.privateFile, `${this.secret} key\n`);
    mkdirSync(join(this.folder, 'docs'), { recursive: true });
    linkSync(join(this.privateDir, 'secret.txt'), join(this.folder, 'docs', 'innocent.txt'));
    symlinkSync('../outside', join(this.folder, 'out'));
    symlinkSync('../outside/canary.txt', join(this.folder, 'canary-link'));
    symlinkSync('id_key', join(this.folder, 'key-link'));
  }

  /** Notes `paths` (files) and the listings of the base and outside folders as they are now. */
  protected guard(paths: string[]): void {
    this.guarded = paths.map((path) => ({ path, text: readFileSync(path, 'utf8'), mtimeMs: statSync(path).mtimeMs }));
    this.baseListing = listing(this.base);
    this.outsideListing = listing(this.outside);
  }

  /** What changed among the guarded files and folder listings; empty when nothing did. */
  changes(): WorldChange[] {
    const changed: WorldChange[] = [];
    for (const g of this.guarded) {
      try {
        if (readFileSync(g.path, 'utf8') !== g.text || statSync(g.path).mtimeMs !== g.mtimeMs) {
          changed.push({ path: g.path, gone: undefined });
        }
      } catch (error) {
        changed.push({ path: g.path, gone: describe(error) });
      }
    }
    if (listing(this.base) !== this.baseListing) changed.push({ path: this.base, gone: undefined });
    if (listing(this.outside) !== this.outsideListing) changed.push({ path: this.outside, gone: undefined });
    return changed;
  }

  /** Whether `text` holds the canary or a private file's text. */
  leaks(text: string): boolean {
    return text.includes(this.canary) || text.includes(this.secret);
  }

  close(): void {
    rmSync(this.base, { recursive: true, force: true });
  }
}

/** A folder's entries, sorted, as one string. */
function listing(dir: string): string {
  return readdirSync(dir).sort().join('\n');
}
