// The forwarder's CPU in a month: its idle use at the fleet's count of watched objects (read off the forwarder bench's
// points as its RSS is) and its use per entry it puts on the bus, for the entries the month's changes bring. Pure.
import { computeAlongPoints } from '#shared/pricing/compute-forwarder-rss.ts';

export type IdleCpuPoint = { readonly watchedObjects: number; readonly cpuSecondsPerHour: number };

export type ForwarderCpu = {
  /** Mean vCPU over the month. */
  readonly vcpu: number;
  readonly idleCpuSecondsPerHour: number;
  /** CPU-seconds of the month's entries. */
  readonly entryCpuSeconds: number;
  readonly basis: 'measured' | 'interpolated' | 'extrapolated';
  /** The measured idle points the figure is derived from. */
  readonly from: readonly IdleCpuPoint[];
};

/**
 * Mean vCPU of the forwarder over `hours`, with `watchedObjects` objects, putting `entries` entries on the bus.
 *
 * @example
 * computeForwarderCpu({ idleCpu: [{ watchedObjects: 800, cpuSecondsPerHour: 3.6 }], cpuMsPerEntry: 1 },
 *   { watchedObjects: 800, entries: 3_600, hours: 1 });
 * // { vcpu: 0.002, idleCpuSecondsPerHour: 3.6, entryCpuSeconds: 3.6, basis: 'measured', from: [...] }
 */
export function computeForwarderCpu(
  measured: { readonly idleCpu: readonly IdleCpuPoint[]; readonly cpuMsPerEntry: number },
  month: { readonly watchedObjects: number; readonly entries: number; readonly hours: number },
): ForwarderCpu {
  const idle = computeAlongPoints(measured.idleCpu, month.watchedObjects, (p) => p.cpuSecondsPerHour);
  const entryCpuSeconds = (month.entries * measured.cpuMsPerEntry) / 1000;
  return {
    vcpu: (idle.value * month.hours + entryCpuSeconds) / (month.hours * 3600),
    idleCpuSecondsPerHour: idle.value,
    entryCpuSeconds,
    basis: idle.basis,
    from: idle.from,
  };
}
