// Child process of the relay bench: opens HOSTS host links and PER_HOST devices on each, all idle,
// prints "ready <n>" once every device is open at its host, then waits to be killed.
import { generateHostIdentity } from '@tether/shared-protocol';
import { BenchDevice, BenchHost } from './bench-clients.js';

const [url, hostsArg, perHostArg] = process.argv.slice(2);
const hosts = Number(hostsArg);
const perHost = Number(perHostArg);
const links: BenchHost[] = [];
const devices: BenchDevice[] = [];
for (let h = 0; h < hosts; h++) {
  const identity = generateHostIdentity();
  const link = await BenchHost.connect(url!, identity, { echo: false });
  links.push(link);
  // One ticket for all of a host's bench devices: the relay checks each one as if it were new, and
  // the clients' own signing is not what is measured.
  const ticket = BenchDevice.ticket(identity);
  // A few at a time, as phones would arrive.
  for (let d = 0; d < perHost; d += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, perHost - d) }, () => BenchDevice.connect(url!, identity, ticket)),
    );
    devices.push(...batch);
  }
  await link.opened(perHost);
}
process.stdout.write(`ready ${devices.length + links.length}\n`);
setInterval(() => {}, 60_000);
