import { formatConfirmationCode, visibleText } from '@tether/shared-protocol';
import { createInterface } from 'node:readline';
import type { Interface } from 'node:readline';
import type { Host } from '../host.js';
import type { PairRequestInfo } from '../gateway/pairing-service.js';

/**
 * Asks at the terminal running `tether start`: "Pair 'iPhone · Safari'? code 482 913 [y/N]".
 * One question at a time; a request answered elsewhere (`tether pair allow`) or given up is
 * taken off the queue.
 */
export class PairPrompt {
  private readonly queue: PairRequestInfo[] = [];
  private asking: string | undefined;
  private readonly rl: Interface;

  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
  ) {
    this.rl = createInterface({ input, output });
    // Under readline the terminal is raw, so Ctrl-C arrives here rather than as a signal: pass it on.
    this.rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  }

  ask(request: PairRequestInfo, host: Host): void {
    this.queue.push(request);
    this.next(host);
  }

  cancel(id: string): void {
    const index = this.queue.findIndex((r) => r.id === id);
    if (index >= 0) this.queue.splice(index, 1);
    if (this.asking === id) {
      this.output.write('\n(answered elsewhere or no longer waiting)\n');
      this.asking = undefined;
      // The pending question is dropped by asking the next one (or nothing).
      this.rl.write('\n');
    }
  }

  close(): void {
    this.rl.close();
  }

  private next(host: Host): void {
    if (this.asking !== undefined) return;
    const request = this.queue.shift();
    if (!request) return;
    this.asking = request.id;
    this.rl.question(
      `\nPair '${visibleText(request.label)}'? code ${formatConfirmationCode(request.code)} (device key ${request.fingerprint}) — does the phone show the same code? [y/N] `,
      (answer) => {
        if (this.asking !== request.id) return this.next(host);
        this.asking = undefined;
        const pairing = host.gateway.pairing;
        if (pairing && /^y(es)?$/i.test(answer.trim())) {
          const allowed = pairing.allow(request.id);
          this.output.write(
            allowed.ok
              ? `Paired '${visibleText(allowed.value.label)}' as ${allowed.value.id}.\n`
              : `Not paired: ${visibleText(allowed.error.message)}\n`,
          );
        } else if (pairing) {
          pairing.deny(request.id);
          this.output.write('Denied.\n');
        }
        this.next(host);
      },
    );
  }
}
