import { eventually, tetherJson } from '../support/host-process.js';
import { cpuSample, cpuSpent } from './cpu.js';
import type { Fault } from './faults.js';
import { faults } from './faults.js';
import type { Rig } from './rig.js';
import { startRig } from './rig.js';

/** The goal after every fault: the host reachable through an honest relay within this of its end. */
export const BACK_GOAL_MS = 2_000;
/** How long after a fault ends the host and the machine are waited for before they count as lost. */
const BACK_WAIT_MS = 30_000;
/**
 * How long the host's link must have been up before a fault starts: past the host's LINK_STABLE_MS
 * (5 s, host/src/relay/link-limits.ts), with a margin. A link that ends sooner counts as a failure
 * and keeps the backoff growing, by design (a relay must not make the host relink in a loop); a
 * fault started on a younger link measures the backoff the previous fault built, not its own.
 */
const LINK_SETTLED_MS = 6_000;

export interface FaultResult {
  name: string;
  /** Milliseconds from the fault's end until the phone's next call was answered. */
  hostBackMs: number | undefined;
  machineBackMs: number | undefined;
  lost: number;
  doubled: number;
  /** CPU the rig's processes spent while the fault lasted (ms), and the fault's length (ms). */
  cpuMs: number;
  faultMs: number;
  /** Host links made (a `ready` passed to the host) while the fault lasted. */
  links: number;
  met: boolean;
}

export interface ChaosReport {
  results: FaultResult[];
  /** What is left after the last fault, with every fault over: '' when nothing only a restart heals. */
  leftover: string;
  events: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs every fault in turn against a fresh rig; `scale` shortens each (0.3: the CI form). */
export async function runChaos(options: { scale?: number; log?: (line: string) => void } = {}): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const rig = await startRig(log);
  try {
    const results: FaultResult[] = [];
    for (const fault of faults(options.scale ?? 1)) {
      await steady(rig);
      const result = await inflict(rig, fault);
      log(line(result));
      results.push(result);
    }
    const leftover = await whatIsLeft(rig);
    return { results, leftover, events: rig.phone.seqs.length };
  } finally {
    await rig.stop();
  }
}

/**
 * Waits until the host answers, the machine is online and the host's link has lasted
 * LINK_SETTLED_MS, so each fault starts from a whole rig and a healthy link.
 */
async function steady(rig: Rig): Promise<void> {
  const at = performance.now();
  await eventually(() => rig.phone.hostBackAfter(at), BACK_WAIT_MS, 'the host before the fault');
  await eventually(() => rig.phone.machineBackAfter(performance.now() - 100), BACK_WAIT_MS, 'the machine');
  const linkedAt = Math.max(...rig.relays.flatMap((r) => r.readies));
  await sleep(Math.max(500, linkedAt + LINK_SETTLED_MS - Date.now()));
}

async function inflict(rig: Rig, fault: Fault): Promise<FaultResult> {
  const before = rig.phone.tally();
  const links = () => rig.relays.reduce((n, r) => n + r.readies.length, 0);
  const linksBefore = links();
  const cpuBefore = cpuSample(rig.pids());
  const began = performance.now();
  await fault.begin(rig);
  await sleep(fault.holdMs);
  await fault.end(rig);
  const ended = performance.now();
  const cpuMs = cpuSpent(cpuBefore, cpuSample(rig.pids()));
  const linksDuring = links() - linksBefore;
  const hostBackMs = await eventually(() => rig.phone.hostBackAfter(ended), BACK_WAIT_MS, 'the host').catch(
    () => undefined,
  );
  const machineBackMs = await eventually(() => rig.phone.machineBackAfter(ended), BACK_WAIT_MS, 'the machine').catch(
    () => undefined,
  );
  // Every event the host has logged by now reaches the phone before it is counted.
  const logged = await rig.lastSeq();
  await eventually(
    () => (rig.phone.tally().max >= logged ? true : undefined),
    BACK_WAIT_MS,
    'the phone to catch up',
  ).catch(() => undefined);
  const after = rig.phone.tally();
  const lost = after.lost - before.lost + Math.max(0, logged - after.max);
  const doubled = after.doubled - before.doubled;
  return {
    name: fault.name,
    hostBackMs: hostBackMs === undefined ? undefined : Math.round(hostBackMs),
    machineBackMs: machineBackMs === undefined ? undefined : Math.round(machineBackMs),
    lost,
    doubled,
    cpuMs: Math.round(cpuMs),
    faultMs: Math.round(ended - began),
    links: linksDuring,
    met: hostBackMs !== undefined && hostBackMs <= BACK_GOAL_MS && lost === 0 && doubled === 0,
  };
}

/**
 * With every fault over: is anything left that only a restart would clear? The host linked, the
 * machine online, both nodes in the cluster, and the phone's events the host's log, each once, in
 * order.
 */
async function whatIsLeft(rig: Rig): Promise<string> {
  const problems: string[] = [];
  const status = await eventually(
    async () => {
      const s = await tetherJson<{ remote: { relay?: { state: string } } }>(rig.host.dataDir, ['status']);
      return s.remote.relay?.state === 'linked' ? s : undefined;
    },
    BACK_WAIT_MS,
    'the host linked',
  ).catch(() => undefined);
  if (!status) problems.push('the host is not linked to a relay');
  for (const node of rig.nodes) {
    const up = await eventually(
      async () => {
        const text = await (await fetch(`http://127.0.0.1:${node.port}/metrics`)).text();
        return text.includes('tether_relay_cluster_up 1') ? true : undefined;
      },
      BACK_WAIT_MS,
      'the node in the cluster',
    ).catch(() => undefined);
    if (!up) problems.push(`node ${node.port} is out of the cluster`);
  }
  if (rig.phone.machineBackAfter(performance.now() - 1_000) === undefined) {
    const back = await eventually(
      () => rig.phone.machineBackAfter(performance.now() - 200),
      BACK_WAIT_MS,
      'machine',
    ).catch(() => undefined);
    if (back === undefined) problems.push('the machine is offline');
  }
  // The log holds seqs 1 to its last; the phone must have had each of them once, in order. The run
  // goes on meanwhile: what the phone had is taken before the log is read.
  const delivered = [...rig.phone.seqs];
  const logged = await rig.lastSeq();
  if (!delivered.every((seq, i) => seq === i + 1)) problems.push('the phone’s events are not each once and in order');
  if (delivered.length > logged) problems.push('the phone has events the log does not');
  return problems.join('; ');
}

export function line(r: FaultResult): string {
  const ms = (v: number | undefined) => (v === undefined ? 'never' : `${v} ms`);
  return (
    `${r.met ? 'ok  ' : 'MISS'} ${r.name.padEnd(38)} host back ${ms(r.hostBackMs).padStart(8)}  machine back ${ms(r.machineBackMs).padStart(8)}  ` +
    `lost ${r.lost}  doubled ${r.doubled}  CPU ${r.cpuMs} ms in ${r.faultMs} ms  links ${r.links}`
  );
}
