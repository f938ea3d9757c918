import { fail, ok } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { Teardown, building } from './closers.js';

function recorded(): { scope: Teardown; closed: string[] } {
  const closed: string[] = [];
  return { scope: new Teardown((name) => closed.push(name)), closed };
}

describe('Teardown', () => {
  it('closes in reverse order of registration, awaiting each closer before the next', async () => {
    const { scope, closed } = recorded();
    const ran: string[] = [];
    scope.defer('store', () => void ran.push('store'));
    scope.defer('slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      ran.push('slow');
    });
    scope.defer('gateway', () => void ran.push('gateway'));
    await scope.close();
    expect(ran).toEqual(['gateway', 'slow', 'store']);
    expect(closed).toEqual(['gateway', 'slow', 'store']);
    expect(scope.names).toEqual(['store', 'slow', 'gateway']);
  });

  it('runs every closer when some throw, then throws their errors once', async () => {
    const { scope, closed } = recorded();
    scope.defer('a', () => undefined);
    scope.defer('b', () => {
      throw new Error('b broke');
    });
    scope.defer('c', () => Promise.reject(new Error('c broke')));
    scope.defer('d', () => undefined);
    const error = await scope.close().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(closed).toEqual(['d', 'c', 'b', 'a']);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors.map((e: Error) => e.message)).toEqual(['c broke', 'b broke']);
  });

  it('throws a single failure as itself', async () => {
    const { scope } = recorded();
    scope.defer('a', () => {
      throw new Error('a broke');
    });
    await expect(scope.close()).rejects.toThrow('a broke');
  });

  it('closes once, however often it is asked, and refuses parts opened after', async () => {
    const { scope, closed } = recorded();
    let count = 0;
    scope.defer('a', async () => {
      await Promise.resolve();
      count++;
    });
    await Promise.all([scope.close(), scope.close()]);
    await scope.close();
    expect(count).toBe(1);
    expect(closed).toEqual(['a']);
    expect(() => scope.defer('late', () => undefined)).toThrow(/began to close/);
  });

  it('closes a nested place where it stands, naming its parts under it', async () => {
    const { scope, closed } = recorded();
    scope.defer('store', () => undefined);
    const transports = scope.nest('transports');
    scope.defer('gateway', () => undefined);
    transports.defer('control', () => undefined);
    transports.defer('listener', () => undefined);
    await scope.close();
    expect(closed).toEqual(['gateway', 'transports/listener', 'transports/control', 'transports', 'store']);
  });
});

describe('building', () => {
  it('closes what was opened so far, newest first, when a step throws, and rethrows', async () => {
    const { scope, closed } = recorded();
    const build = building(scope, () => {
      scope.defer('store', () => undefined);
      scope.defer('sessions', () => undefined);
      throw new Error('the gateway could not be built');
    });
    await expect(build).rejects.toThrow('the gateway could not be built');
    expect(closed).toEqual(['sessions', 'store']);
  });

  it('closes what was opened so far when a step fails with a result, and returns it', async () => {
    const { scope, closed } = recorded();
    const built = await building(scope, () => {
      scope.defer('store', () => undefined);
      return Promise.resolve(fail('malformed', 'no push keys'));
    });
    expect(built.ok).toBe(false);
    expect(closed).toEqual(['store']);
  });

  it('leaves open what a successful build opened', async () => {
    const { scope, closed } = recorded();
    const built = await building(scope, () => {
      scope.defer('store', () => undefined);
      return Promise.resolve(ok(1));
    });
    expect(built).toEqual(ok(1));
    expect(closed).toEqual([]);
  });

  it('reports a closer that fails while undoing a failed build alongside the build error', async () => {
    const { scope } = recorded();
    const build = building(scope, () => {
      scope.defer('store', () => {
        throw new Error('store would not close');
      });
      throw new Error('build broke');
    });
    const error: unknown = await build.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as AggregateError).errors.map((e: Error) => e.message)).toEqual([
      'build broke',
      'store would not close',
    ]);
  });
});
