// Child process of `npm run bench -- many-phones`: HOSTS host links and PER_HOST idle devices on
// each, every connection from its own loopback address in 127.(10 + INDEX).0.0/16, PER_ADDRESS to
// an address (under the relay's default bounds: a burst of 60 new connections and 64 sockets per
// address), so the node runs with its production limits. Prints "ready <n>" once every device is
// open at its host. Then over IPC: "go" starts each host's first device sending a FRAME_BYTES frame
// RATE times a second, which its host echoes back; "count" answers with the frames received so far
// (by hosts and by those devices) and the connections closed under it, by close code.
import { generateHostIdentity } from '@tether/shared-protocol';
import { BenchDevice, BenchHost } from './bench-clients.js';

const [url, hostsArg, perHostArg, indexArg, rateArg] = process.argv.slice(2);
const hosts = Number(hostsArg);
const perHost = Number(perHostArg);
const index = Number(indexArg);
const rate = Number(rateArg);
const PER_ADDRESS = 50;
const FRAME_BYTES = 256;

let made = 0;
/** The next connection's source address. */
function nextAddress(): string {
  const a = Math.floor(made++ / PER_ADDRESS);
  return `127.${10 + index}.${Math.floor(a / 250)}.${1 + (a % 250)}`;
}

const links: BenchHost[] = [];
const active: BenchDevice[] = [];
let echoes = 0;
/** Connections closed under the bench, by close code. */
const closed: Record<string, number> = {};
const onClose = (code: number) => void (closed[code] = (closed[code] ?? 0) + 1);
let devices = 0;
for (let h = 0; h < hosts; h++) {
  const identity = generateHostIdentity();
  const link = await BenchHost.connect(url!, identity, { echo: true, localAddress: nextAddress() });
  link.ws.on('close', onClose);
  links.push(link);
  // One ticket for all of a host's devices: the relay checks each as if it were new, and the
  // clients' own signing is not what is measured.
  const ticket = BenchDevice.ticket(identity);
  for (let d = 0; d < perHost; d += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, perHost - d) }, () =>
        BenchDevice.connect(url!, identity, ticket, nextAddress()),
      ),
    );
    for (const device of batch) device.ws.on('close', onClose);
    if (d === 0) {
      active.push(batch[0]!);
      batch[0]!.ws.on('message', () => echoes++);
    }
    devices += batch.length;
  }
  await link.opened(perHost);
}
process.stdout.write(`ready ${devices + links.length}\n`);

const frame = new Uint8Array(FRAME_BYTES).fill(3);
process.on('message', (message: string) => {
  if (message === 'go') {
    setInterval(() => {
      for (const device of active) device.ws.send(frame);
    }, 1000 / rate);
  } else if (message === 'count') {
    const received = links.reduce((sum, link) => sum + link.received, 0) + echoes;
    process.send!({ frames: received, closed });
  }
});
