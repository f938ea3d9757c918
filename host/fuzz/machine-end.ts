import type { ChannelMessage } from '@tether/shared-protocol';
import {
  LinkFrameOpener,
  LinkFrameSealer,
  MAX_LINK_FRAME_PLAINTEXT,
  MachineLinkInitiator,
  decodeChannelMessage,
  encodeChannelMessage,
} from '@tether/shared-protocol';
import { nodeLinkAead } from '@tether/machine';
import type { FuzzKit } from './fuzz-kit.js';
import { settle } from './fuzz-kit.js';
import type { FuzzPipeEnd } from './fuzz-pipe.js';
import { fuzzPipe } from './fuzz-pipe.js';
import type { MachineKit } from '../src/machines/testing/machine-kit.js';

/**
 * A hostile machine's end of one link to the host: it says a real hello, opens the host's
 * welcome, answers the host's pings, and keeps what else the host sent (opened and decoded, at
 * most 256 messages) for the run to `take`. A frame or message from the host that does not open
 * or decode is a failure.
 */
export class MachineEnd {
  sealer: LinkFrameSealer | undefined;
  private opener: LinkFrameOpener | undefined;
  private readonly initiator: MachineLinkInitiator;
  /** What the host sent, opened and decoded, not yet taken. */
  readonly incoming: ChannelMessage[] = [];
  /** The name the host registered it under, once it did. */
  name: string | undefined;
  nextId = 1;

  private constructor(
    private readonly kit: FuzzKit,
    readonly end: FuzzPipeEnd,
  ) {
    this.initiator = new MachineLinkInitiator(kit.bytes);
  }

  /** A real handshake on a new socket to `machines`' link server. */
  static async connect(kit: FuzzKit, machines: MachineKit): Promise<MachineEnd> {
    const [end, hostEnd] = fuzzPipe((what) => kit.fail(what));
    const link = new MachineEnd(kit, end);
    end.onMessage = (data) => link.receive(data);
    machines.server.accept(hostEnd, '203.0.113.9');
    end.send(link.initiator.hello());
    await settle();
    if (!link.sealer) kit.fail('the host did not welcome a real hello');
    return link;
  }

  /** Seals `plain` and sends it, once the link is up. */
  send(plain: Uint8Array): void {
    const frame = this.sealer?.seal(plain);
    if (frame?.ok) this.end.send(frame.value);
  }

  /** Takes the first message the host sent that `match` accepts. */
  take(match: (m: ChannelMessage) => boolean): ChannelMessage | undefined {
    const at = this.incoming.findIndex(match);
    if (at < 0) return undefined;
    return this.incoming.splice(at, 1)[0];
  }

  private receive(data: Uint8Array): void {
    const k = this.kit;
    if (!this.opener) {
      const welcomed = this.initiator.acceptWelcome(data);
      if (!welcomed.ok) return k.fail(`the host's welcome does not hold: ${welcomed.error.message}`);
      this.sealer = new LinkFrameSealer(nodeLinkAead, welcomed.value.keys.send, MAX_LINK_FRAME_PLAINTEXT);
      this.opener = new LinkFrameOpener(nodeLinkAead, welcomed.value.keys.receive, MAX_LINK_FRAME_PLAINTEXT);
      return;
    }
    const plain = this.opener.open(data);
    if (!plain.ok) return k.fail(`the host sent a frame that does not open: ${plain.error.code}`);
    const message = decodeChannelMessage(plain.value);
    if (!message) return k.fail('the host sent a message that does not decode');
    if (message.t === 'ping') this.send(encodeChannelMessage({ t: 'pong', n: message.n }));
    else if (this.incoming.length < 256) this.incoming.push(message);
  }
}
