// A page's CPU profile through the DevTools protocol, summed by function: where a bench's time goes.
import type { CDPSession } from '@playwright/test';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** Starts sampling the page's main thread every `intervalUs`; `stop` resolves to self time by function. */
export async function startCpuProfile(
  cdp: CDPSession,
  intervalUs = 500,
): Promise<{ stop: () => Promise<{ name: string; ms: number }[]> }> {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: intervalUs });
  await cdp.send('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await cdp.send('Profiler.stop');
      const names = new Map<number, string>();
      for (const node of profile.nodes as ProfileNode[]) {
        const { functionName, url, lineNumber } = node.callFrame;
        const file = url.slice(url.lastIndexOf('/') + 1);
        names.set(node.id, file ? `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}` : functionName);
      }
      const self = new Map<string, number>();
      const samples = profile.samples ?? [];
      const deltas = profile.timeDeltas ?? [];
      // Each sample's time is the delta to the next one.
      for (let i = 0; i < samples.length; i++) {
        const name = names.get(samples[i]!) ?? '?';
        self.set(name, (self.get(name) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
      }
      return [...self].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
    },
  };
}
