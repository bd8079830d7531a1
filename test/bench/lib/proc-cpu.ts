// CPU time by role, read from Linux's /proc: which process (hub, database, receivers, driver) spends
// the machine's cores during a measured phase. Used where a ratio is capped by the machine, to show
// where the time goes instead of guessing.
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name (field 2) may hold spaces: the fields after it start past the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // the process has gone
  }
}

/**
 * User + system CPU seconds a process has used so far (0 when it has gone); with `reaped`, also
 * what its exited children used (a PostgreSQL server's backends come and go with connections).
 */
export function cpuSecondsOf(pid: number, reaped = false): number {
  const f = statFields(pid);
  if (!f) return 0;
  // After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
  const own = Number(f[11]) + Number(f[12]);
  return (reaped ? own + Number(f[13]) + Number(f[14]) : own) / TICKS_PER_SECOND;
}

/** A server and its live children, counting children that exited meanwhile (see cpuSecondsOf). */
export function processTreeSeconds(serverPid: number): number {
  return (
    cpuSecondsOf(serverPid, true) + childrenOf(serverPid).reduce((a, p) => a + cpuSecondsOf(p), 0)
  );
}

/** The pids whose parent is `ppid` (for example a PostgreSQL server's backends). */
export function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const f = statFields(pid);
    if (f && Number(f[1]) === ppid) out.push(pid);
  }
  return out;
}

/** Busy and total CPU seconds of the whole machine so far (all cores, from /proc/stat). */
function machineSeconds(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'latin1').split('\n')[0]!.trim().split(/\s+/).slice(1);
  const n = cpu.map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  const idle = (n[3] ?? 0) + (n[4] ?? 0); // idle + iowait
  return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}

export interface RoleCpu {
  /** CPU seconds per role over the phase. */
  seconds: Record<string, number>;
  /** Wall seconds of the phase. */
  wallSeconds: number;
  /** Share of the machine's cores that was busy (any process, ours or not). */
  machineBusy: number;
  cores: number;
}

/**
 * Starts measuring; the returned function ends the phase. `roles` gives each role's pids, read at
 * both ends (a pid that exits mid-phase is not charged: use processTreeSeconds for servers whose
 * workers come and go).
 */
export function meterRoles(roles: Record<string, () => number[] | number>): () => RoleCpu {
  // A role gives its pids, or its CPU seconds so far directly (processTreeSeconds).
  const sum = (pids: number[] | number) =>
    typeof pids === 'number' ? pids : pids.reduce((a, p) => a + cpuSecondsOf(p), 0);
  const before: Record<string, number> = {};
  for (const [role, pids] of Object.entries(roles)) before[role] = sum(pids());
  const machineBefore = machineSeconds();
  const startedAt = process.hrtime.bigint();
  return () => {
    const wallSeconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    const machineAfter = machineSeconds();
    const seconds: Record<string, number> = {};
    for (const [role, pids] of Object.entries(roles)) seconds[role] = sum(pids()) - before[role]!;
    const total = machineAfter.total - machineBefore.total;
    return {
      seconds,
      wallSeconds,
      machineBusy: total > 0 ? (machineAfter.busy - machineBefore.busy) / total : NaN,
      cores: availableParallelism(),
    };
  };
}

/** "hub 41 µs, postgres 30 µs, ... per delivery" plus the ceiling those costs set on this machine. */
export function describeRoleCpu(
  m: RoleCpu,
  operations: number,
  unit: string,
  units = `${unit}s`,
): string {
  const perOp = Object.entries(m.seconds).map(
    ([role, s]) => `${role} ${((s / operations) * 1e6).toFixed(0)} µs`,
  );
  const totalPerOp = Object.values(m.seconds).reduce((a, b) => a + b, 0) / operations;
  const ceiling = m.cores / totalPerOp;
  return (
    `CPU per ${unit}: ${perOp.join(', ')}; together ${(totalPerOp * 1e6).toFixed(0)} µs, so ` +
    `${m.cores} cores cap this at ~${Math.round(ceiling)} ${units}/s; machine busy ` +
    `${Math.round(m.machineBusy * 100)}% during the phase`
  );
}
