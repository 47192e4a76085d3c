// CPU-seconds and memory of named processes, read from /proc (Linux): cumulative user + system time and resident
// memory, sampled every `intervalMs` so a phase's CPU is a difference and its memory a mean or a peak over samples.
import { readdirSync, readFileSync } from 'node:fs';

export type ProcessSample = { readonly at: number; readonly cpuSeconds: number; readonly rssMiB: number };

export type ProcessMeter = {
  /** Samples every process group now (also called on the timer). */
  sample(): void;
  /** Per name: CPU-seconds used in [from, to] (difference of the samples nearest the bounds). */
  cpuSeconds(from: number, to: number): Record<string, number>;
  /** Per name: mean and peak resident memory of the samples in [from, to]. */
  memory(from: number, to: number): Record<string, { meanMiB: number; peakMiB: number }>;
  stop(): void;
};

const clockTicks = 100;

/** Every process whose command line contains `needle` (e.g. a data folder), this process excluded. */
export function findPids(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(needle))
        pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** `pid` and all its descendants. */
export function withDescendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    out.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return out;
}

function readUsage(pid: number): { cpuSeconds: number; rssMiB: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime field 15.
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / clockTicks;
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return { cpuSeconds, rssMiB: rssKiB / 1024 };
  } catch {
    return undefined;
  }
}

/**
 * Samples the process groups `groups` returns (name → pids, resolved at every sample so restarts are followed).
 *
 * @example
 * const meter = startProcessMeter(() => ({ 'kube-apiserver': findPids(dataDir) }), 2_000);
 * meter.cpuSeconds(start, Date.now());
 */
export function startProcessMeter(groups: () => Record<string, readonly number[]>, intervalMs: number): ProcessMeter {
  const samples = new Map<string, ProcessSample[]>();
  // NOTE: a process's CPU is cumulative; a pid that exits takes its last reading along, kept here per pid.
  const lastByPid = new Map<string, Map<number, number>>();
  const sample = () => {
    const at = Date.now();
    for (const [name, pids] of Object.entries(groups())) {
      const last = lastByPid.get(name) ?? new Map<number, number>();
      lastByPid.set(name, last);
      let rssMiB = 0;
      for (const pid of pids) {
        const usage = readUsage(pid);
        if (!usage) continue;
        last.set(pid, usage.cpuSeconds);
        rssMiB += usage.rssMiB;
      }
      const cpuSeconds = [...last.values()].reduce((a, b) => a + b, 0);
      const list = samples.get(name) ?? [];
      list.push({ at, cpuSeconds, rssMiB });
      samples.set(name, list);
    }
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  const nearest = (list: readonly ProcessSample[], at: number) =>
    list.reduce((best, s) => (Math.abs(s.at - at) < Math.abs(best.at - at) ? s : best));
  return {
    sample,
    cpuSeconds(from, to) {
      const out: Record<string, number> = {};
      for (const [name, list] of samples) {
        if (list.length === 0) continue;
        out[name] = Math.max(0, nearest(list, to).cpuSeconds - nearest(list, from).cpuSeconds);
      }
      return out;
    },
    memory(from, to) {
      const out: Record<string, { meanMiB: number; peakMiB: number }> = {};
      for (const [name, list] of samples) {
        const inside = list.filter((s) => s.at >= from && s.at <= to && s.rssMiB > 0);
        if (inside.length === 0) continue;
        out[name] = {
          meanMiB: inside.reduce((a, s) => a + s.rssMiB, 0) / inside.length,
          peakMiB: Math.max(...inside.map((s) => s.rssMiB)),
        };
      }
      return out;
    },
    stop: () => clearInterval(timer),
  };
}
