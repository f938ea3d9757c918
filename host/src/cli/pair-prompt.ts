import type { DeviceInfo, Result, Scope } from '@tether/shared-protocol';
import { DEFAULT_DEVICE_SCOPES, formatConfirmationCode, visibleText } from '@tether/shared-protocol';
import { createInterface } from 'node:readline';
import type { Interface } from 'node:readline';
import type { PairRequestInfo } from '../gateway/pairing-service.js';
import { describePairPage, servedElsewhere } from './pair-page-text.js';

/** What the prompt does with an answer: the pairing service's allow and deny. */
export interface PairAnswers {
  /** Without `scopes`, the request's default. */
  allow(id: string, scopes?: readonly Scope[]): Result<DeviceInfo>;
  deny(id: string): Result<unknown>;
}

/**
 * Whether the question offers a second way to allow, `r`: everything but admin, for a device whose
 * app came from a page someone else serves (a relay's, another site's) when the person at the
 * computer runs that page themselves. Over plain HTTP the page could have come from anyone on the
 * network, so there it is only `tether pair allow ID --scopes …`, on purpose.
 */
function offersRunItMyself(request: PairRequestInfo): boolean {
  return request.secure && servedElsewhere(request.page);
}

type State =
  | { name: 'idle' }
  | { name: 'asking'; request: PairRequestInfo; answers: PairAnswers }
  /** The question asked was withdrawn; nothing is asked until the person presses Enter. */
  | { name: 'held' };

/**
 * Asks at the terminal running `tether start`: "Pair 'iPhone · Safari'? code 482 913 [y/N]".
 * One question at a time, each naming its request's label and code, and the page the phone loaded
 * the app from. A device from a relay's page gets watch and approve with `y`; `r` ("I run this
 * relay") gives it chat and terminals too, offered only where the relay serves the app: through a
 * relay that serves none, no page sent the request, and more is given only with `tether pair allow`.
 *
 * A request answered elsewhere (`tether pair allow`) or given up while it is being asked is
 * withdrawn, and the next question waits until the person presses Enter: a `y` typed for the
 * first request must never land on another that slid into its place.
 */
export class PairPrompt {
  private readonly queue: { request: PairRequestInfo; answers: PairAnswers }[] = [];
  private state: State = { name: 'idle' };
  private readonly rl: Interface;

  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
  ) {
    this.rl = createInterface({ input, output, prompt: '' });
    this.rl.on('line', (line) => this.answered(line));
    // Under readline the terminal is raw, so Ctrl-C arrives here rather than as a signal: pass it on.
    this.rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  }

  ask(request: PairRequestInfo, answers: PairAnswers): void {
    this.queue.push({ request, answers });
    if (this.state.name === 'idle') this.next();
    else if (this.state.name === 'held') this.output.write('Another pair request is waiting: press Enter to see it.\n');
  }

  cancel(id: string): void {
    const index = this.queue.findIndex((q) => q.request.id === id);
    if (index >= 0) this.queue.splice(index, 1);
    if (this.state.name !== 'asking' || this.state.request.id !== id) return;
    const request = this.state.request;
    this.state = { name: 'held' };
    this.rl.setPrompt('');
    this.output.write(
      `\n${describe(request)} was answered elsewhere or is no longer waiting: that question is withdrawn.\n` +
        `Press Enter to go on${this.queue.length > 0 ? ' to the next pair request' : ''}.\n`,
    );
  }

  close(): void {
    this.rl.close();
  }

  private answered(line: string): void {
    const state = this.state;
    if (state.name === 'idle') return;
    this.state = { name: 'idle' };
    this.rl.setPrompt('');
    if (state.name === 'held') {
      if (line.trim() !== '')
        this.output.write(`(Ignored "${line.trim().slice(0, 20)}": its question was withdrawn.)\n`);
      return this.next();
    }
    const { request, answers } = state;
    const answer = line.trim();
    const runItMyself = offersRunItMyself(request) && /^r$/i.test(answer);
    if (/^y(es)?$/i.test(answer) || runItMyself) {
      const allowed = runItMyself ? answers.allow(request.id, DEFAULT_DEVICE_SCOPES) : answers.allow(request.id);
      this.output.write(
        allowed.ok
          ? `Paired ${describe(request)} as ${allowed.value.id} (${allowed.value.scopes.join(', ')}).\n`
          : `Not paired: ${visibleText(allowed.error.message)}\n`,
      );
    } else {
      answers.deny(request.id);
      this.output.write(`Denied ${describe(request)}.\n`);
    }
    this.next();
  }

  private next(): void {
    const item = this.queue.shift();
    if (!item) return;
    const { request } = item;
    this.state = { name: 'asking', ...item };
    this.output.write(`\n${describePairPage(request.page)}\n`);
    const second = offersRunItMyself(request);
    if (!request.secure) {
      this.output.write(
        `Over plain HTTP, allowed here this device gets only: ${request.scopes.join(', ')}. To let it chat or open\n` +
          `terminals too, leave this question and run: tether pair allow ${request.id} --scopes watch,approve,chat,terminal\n`,
      );
    } else if (second) {
      const who = request.page.from === 'relay' ? 'you run this relay yourself' : 'that site is yours';
      this.output.write(
        `Allowed with y, this device gets only: ${request.scopes.join(', ')}.\n` +
          `Answer r instead if ${who}: then it gets ${DEFAULT_DEVICE_SCOPES.join(', ')} (it may chat and open terminals too).\n`,
      );
    } else if (request.scopes.length < DEFAULT_DEVICE_SCOPES.length) {
      // No page to vouch for (a program sent it through a relay): more only by a deliberate command.
      this.output.write(
        `Allowed with y, this device gets only: ${request.scopes.join(', ')}. To give it more, only if you know who\n` +
          `sent it, leave this question and run: tether pair allow ${request.id} --scopes watch,approve,chat,terminal\n`,
      );
    }
    this.rl.setPrompt(
      `Pair '${visibleText(request.label)}'? code ${formatConfirmationCode(request.code)} (device key ${request.fingerprint}) — does the phone show the same code? [${second ? 'y/r/N' : 'y/N'}] `,
    );
    this.rl.prompt();
  }
}

function describe(request: PairRequestInfo): string {
  return `'${visibleText(request.label)}' (code ${formatConfirmationCode(request.code)})`;
}
