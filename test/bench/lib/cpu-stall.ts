// The longest main-thread CPU slice of this process: the CPU time its thread spent between two
// ticks of a 1 ms timer (Linux: /proc/self/task/<pid>/schedstat). Unlike the event-loop delay it
// does not count time the process was not scheduled, so it reads the same on a loaded machine.
import { readFileSync } from 'node:fs';

/** CPU time of this process's main thread in ns, or undefined where /proc does not tell. */
function mainThreadCpuNs(): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

/** Watches the longest main-thread CPU time (ms) between two turns of a 1 ms timer until stopped. */
export function watchCpuStall(): { stop(): number } | undefined {
  let last = mainThreadCpuNs();
  if (last === undefined) return undefined;
  let longest = 0;
  let timer: NodeJS.Timeout;
  const tick = (): void => {
    const now = mainThreadCpuNs()!;
    longest = Math.max(longest, (now - last!) / 1e6);
    last = mainThreadCpuNs();
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return {
    stop: () => {
      clearTimeout(timer);
      return longest;
    },
  };
}
