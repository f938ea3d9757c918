import type { Connect, WebSocketConstructor } from '@tether/shared-protocol';
import { DeviceClient, fromBase64UrlExact, relayConnect } from '@tether/shared-protocol';
import { WebSocket } from 'ws';
import type { RelayPaired } from '../support/relay-device.js';

/** Milliseconds between the phone's calls: the pace at which it notices the host is back. */
const PROBE_MS = 100;
/** A call not answered within this is lost: made again rather than hiding when the host is back. */
const CALL_TIMEOUT_MS = 1_000;

/** An answered call: when it was made and when its answer came (performance.now() ms). */
interface Answer {
  sent: number;
  at: number;
}

/**
 * The chaos rig's phone: a real device client (the sealed protocol, over the relays only, as the
 * app away from home), which watches the session the run writes to and asks, every 100 ms, for
 * the host (`host.info`) and for the machine (`machines.list`). It connects through each relay in
 * turn, moving on when one fails, as the app does with the relays a host keeps.
 */
export class Phone {
  readonly client: DeviceClient;
  /** Every session event delivered for the watched session, in the order the phone got them. */
  readonly seqs: number[] = [];
  readonly hostAnswers: Answer[] = [];
  readonly machineOnline: Answer[] = [];
  private sessionId: string | undefined;
  private running = true;
  private readonly loops: Promise<void>[] = [];

  constructor(paired: RelayPaired, relayUrls: string[]) {
    this.client = new DeviceClient({
      deviceId: paired.reply.deviceId,
      deviceKeys: paired.keys,
      hostBoxPublicKey: fromBase64UrlExact(paired.reply.hostBoxPublicKey, 32)!,
      connect: rotatingConnect(paired, relayUrls),
      backoff: { baseMs: 100, maxMs: 500 },
    });
    this.client.onEvent((event) => {
      if ('seq' in event && event.sessionId === this.sessionId) this.seqs.push(event.seq);
    });
    this.client.start();
    this.loops.push(this.probe(this.hostAnswers, async () => (await this.client.call('host.info', {}, opts)).ok));
    this.loops.push(
      this.probe(this.machineOnline, async () => {
        const listed = await this.client.call('machines.list', {}, opts);
        return listed.ok && listed.value.machines.some((m) => m.status === 'online');
      }),
    );
  }

  watch(sessionId: string): void {
    this.sessionId = sessionId;
    this.client.watch(sessionId, 0);
  }

  /** Milliseconds from `at` until a call made at or after it was answered; undefined if none yet. */
  hostBackAfter(at: number): number | undefined {
    return backAfter(this.hostAnswers, at);
  }

  machineBackAfter(at: number): number | undefined {
    return backAfter(this.machineOnline, at);
  }

  /** Of the events delivered so far: the highest seq, those missing below it, those delivered twice. */
  tally(): { max: number; lost: number; doubled: number } {
    const seen = new Set<number>();
    let doubled = 0;
    let max = 0;
    for (const seq of this.seqs) {
      if (seen.has(seq)) doubled++;
      seen.add(seq);
      max = Math.max(max, seq);
    }
    return { max, lost: max - seen.size, doubled };
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.client.stop();
  }

  private async probe(answers: Answer[], ask: () => Promise<boolean>): Promise<void> {
    while (this.running) {
      const sent = performance.now();
      if (await ask()) answers.push({ sent, at: performance.now() });
      await new Promise((resolve) => setTimeout(resolve, PROBE_MS));
    }
  }
}

const opts = { timeoutMs: CALL_TIMEOUT_MS };

function backAfter(answers: readonly Answer[], at: number): number | undefined {
  const back = answers.find((a) => a.sent >= at);
  return back ? back.at - at : undefined;
}

/** Connects through each relay in turn: every new connection goes to the next one, so a relay that
 * cannot be reached, or whose node cannot find the host, is not tried twice in a row (the app puts
 * a path that failed at the back of its order). */
function rotatingConnect(paired: RelayPaired, urls: string[]): Connect {
  let next = 0;
  const through = urls.map((relayUrl) =>
    relayConnect({
      relayUrl,
      hostId: paired.reply.hostId,
      hostSignPublicKey: fromBase64UrlExact(paired.reply.hostSignPublicKey, 32)!,
      ticket: () => paired.reply.relay!.ticket,
      WebSocketImpl: WebSocket as unknown as WebSocketConstructor,
    }),
  );
  return () => {
    const i = next;
    next = (next + 1) % urls.length;
    return through[i]!();
  };
}
