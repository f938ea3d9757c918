import { fail, ok, protocolError } from '@tether/shared-protocol';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
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
