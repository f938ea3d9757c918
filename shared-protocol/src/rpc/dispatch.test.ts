import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { fail, ok, protocolError } from '../errors.js';
import { MACHINE_METHODS } from '../machine/machine-methods.js';
import { createDispatch } from './dispatch.js';

const TABLE = {
  'echo.upper': { params: v.object({ text: v.string() }), result: v.object({ text: v.string() }) },
  'echo.broken': { params: v.object({}), result: v.object({ n: v.number() }) },
  'echo.throws': { params: v.object({}), result: v.object({}) },
  'echo.admin': { params: v.object({}), result: v.object({}) },
  'echo.missing': { params: v.object({}), result: v.object({}) },
} as const;

function setup() {
  const counts: string[] = [];
  const dispatch = createDispatch<typeof TABLE, { admin: boolean }>(
    TABLE,
    {
      'echo.upper': ({ text }) => ok({ text: text.toUpperCase() }),
      // A handler whose value its result schema refuses: it must not leave the host as is.
      'echo.broken': () => ok({ n: 'not a number' as unknown as number }),
      'echo.throws': () => {
        throw new Error('a bug');
      },
      'echo.admin': (_p, caller) => (caller.admin ? ok({}) : fail('not-found', 'hidden')),
    },
    {
      authorize: (method, caller) =>
        method === 'echo.admin' && !caller.admin ? protocolError('forbidden', 'needs admin') : undefined,
      count: (reason) => counts.push(reason),
    },
  );
  return { dispatch, counts };
}

describe('one dispatch for every method table', () => {
  it('runs a known method with params as its schema outputs them', async () => {
    const { dispatch } = setup();
    expect(await dispatch('echo.upper', { text: 'hi' }, { admin: false })).toEqual(ok({ text: 'HI' }));
  });

  it('refuses, with a stable code each, and counts every refusal', async () => {
    const { dispatch, counts } = setup();
    const caller = { admin: false };
    expect(await dispatch('nope', {}, caller)).toMatchObject({ error: { code: 'unknown-method' } });
    expect(await dispatch('toString', {}, caller)).toMatchObject({ error: { code: 'unknown-method' } });
    expect(await dispatch('echo.admin', {}, caller)).toMatchObject({ error: { code: 'forbidden' } });
    expect(await dispatch('echo.upper', { text: 3 }, caller)).toMatchObject({ error: { code: 'invalid-params' } });
    expect(await dispatch('echo.missing', {}, caller)).toMatchObject({ error: { code: 'unsupported' } });
    expect(await dispatch('echo.broken', {}, caller)).toMatchObject({ error: { code: 'internal' } });
    expect(await dispatch('echo.throws', {}, caller)).toMatchObject({ error: { code: 'internal', message: 'a bug' } });
    expect(counts).toEqual([
      'request:unknown-method',
      'request:unknown-method',
      'request:forbidden',
      'request:invalid-params',
      'request:unsupported',
      'request:internal',
      'request:internal',
    ]);
  });
});

describe('the machine link table through the same dispatch', () => {
  const dispatch = createDispatch(MACHINE_METHODS, {
    'machine.ping': () => ok({ now: 5 }),
    // Params arrive typed by the schema: `maxBytes` is a number here, with no cast.
    'fs.read': ({ path, maxBytes }) =>
      ok({ body: new TextEncoder().encode(path.slice(0, maxBytes)), size: Math.min(path.length, maxBytes) }),
    // A machine whose handler answers outside its schema: caught before it leaves.
    'fs.stat': () => ok({ type: 'file' as const, size: -1, modifiedAt: 0 }),
  });

  it('serves a method of the table, and refuses what the table does not say', async () => {
    expect(await dispatch('machine.ping', {}, undefined)).toEqual(ok({ now: 5 }));
    expect(await dispatch('fs.read', { root: '/r', path: 'abc', maxBytes: 2 }, undefined)).toEqual(
      ok({ body: new TextEncoder().encode('ab'), size: 2 }),
    );
    expect(await dispatch('fs.delete', { path: '/' }, undefined)).toMatchObject({ error: { code: 'unknown-method' } });
    expect(await dispatch('fs.write', { root: '/r', path: 'a', text: '' }, undefined)).toMatchObject({
      error: { code: 'unsupported' },
    });
    expect(await dispatch('fs.stat', { root: '/r', path: 'a' }, undefined)).toMatchObject({
      error: { code: 'internal' },
    });
  });

  it('names the field a request got wrong', async () => {
    const refused = await dispatch('fs.read', { root: '/r', path: 'a', maxBytes: -1 }, undefined);
    expect(refused.ok ? '' : refused.error.message).toMatch(/^maxBytes: /);
  });

  it('types each handler by its method', () => {
    createDispatch(MACHINE_METHODS, {
      // @ts-expect-error: fs.read answers { body, size }, not a listing.
      'fs.read': () => ok({ entries: [], truncated: false }),
      // @ts-expect-error: fs.checkFolder has no `root` param.
      'fs.checkFolder': ({ root }) => ok({ path: String(root) }),
    });
  });
});
