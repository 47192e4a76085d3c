// The measured usage the cost model scales, generated from the committed bench results by
// `node --import tsx test/bench/side/print-profile.ts --write --wake-ups=test/bench/results/side-b-10-profile.json --counts=test/bench/results/side-b-10-profile.json --init=test/bench/results/init-rie.json --webhooks=test/bench/results/webhooks-rie.json --passes=test/bench/results/passes-rie.json --idle=test/bench/results/side-b-30-idle.json test/bench/results/side-by-side-100-epyc.json test/bench/results/latest.json test/bench/results/forwarder-floor.json`
// (generated — do not edit; regenerate after `npm run bench:side`, `npm run bench` or the forwarder bench).
import type { MeasuredProfile } from '#shared/pricing/measured-profile-types.ts';

export const measuredProfile: MeasuredProfile = {
  basis:
    'test/bench/results/side-by-side-100-epyc.json, 100 Clusters per side, 2026-11-27, 2 × AMD EPYC, 24 GiB RAM, linux/x64, Node v22.23.3',
  changes: {
    variable: {
      source: 'test/bench/results/side-b-10-profile.json, phase "variable change", 2 Cluster-changes',
      clusterChanges: 2,
      eventInvocations: 1,
      passesRun: 1,
      passesSkipped: 0,
      passErrors: 0,
      forwarderEvents: 1,
      fanOutEntries: 0,
      webhookCalls: 2,
      replacedCpuSeconds: 0.095,
      wakeUps: 0,
      requeues: 0,
    },
    scale: {
      source: 'test/bench/results/side-b-10-profile.json, phase "scale-up", 2 Cluster-changes',
      clusterChanges: 2,
      eventInvocations: 3,
      passesRun: 1,
      passesSkipped: 2,
      passErrors: 0,
      forwarderEvents: 3,
      fanOutEntries: 0,
      webhookCalls: 2,
      replacedCpuSeconds: 1.055,
      wakeUps: 0,
      requeues: 0,
    },
    upgrade: {
      source: 'test/bench/results/side-b-10-profile.json, phase "version upgrade", 2 Cluster-changes',
      clusterChanges: 2,
      eventInvocations: 5,
      passesRun: 5,
      passesSkipped: 0,
      passErrors: 0,
      forwarderEvents: 5,
      fanOutEntries: 0,
      webhookCalls: 2,
      replacedCpuSeconds: 12.62,
      wakeUps: 0,
      requeues: 4,
    },
    crs: {
      source:
        'test/bench/results/side-b-10-profile.json, phase "ClusterResourceSet change (fleet)", 10 Cluster-changes',
      clusterChanges: 10,
      eventInvocations: 1.4,
      passesRun: 0.1,
      passesSkipped: 1.2,
      passErrors: 0,
      forwarderEvents: 1.4,
      fanOutEntries: 0,
      webhookCalls: 1.2,
      replacedCpuSeconds: 0,
      wakeUps: 0,
      requeues: 0,
    },
    class: {
      source: 'test/bench/results/side-b-10-profile.json, phase "ClusterClass change (fleet)", 10 Cluster-changes',
      clusterChanges: 10,
      eventInvocations: 2.3,
      passesRun: 1.1,
      passesSkipped: 2.1,
      passErrors: 0,
      forwarderEvents: 2.2,
      fanOutEntries: 0.1,
      webhookCalls: 0.2,
      replacedCpuSeconds: 0.0498,
      wakeUps: 0,
      requeues: 0,
    },
    create: {
      source: 'test/bench/results/side-b-10-profile.json, phases "create" + "addons-setup", 10 Clusters created',
      clusterChanges: 10,
      eventInvocations: 29.2,
      passesRun: 2.3,
      passesSkipped: 17.2,
      passErrors: 0,
      forwarderEvents: 27.2,
      fanOutEntries: 0,
      webhookCalls: 10,
      replacedCpuSeconds: 0.3963,
      wakeUps: 0,
      requeues: 0,
    },
  },
  splits: [
    'one-time schedules (wake-ups) and requeues per change type: test/bench/results/side-b-10-profile.json (side B, 10 Clusters, 2026-11-28, 2 × Intel(R) Xeon(R) Processor, 24 GiB RAM, linux/x64, Node v22.23.3) (each schedule created fires once: counted when created, in the phase whose pass asked for it)',
    "capi-serverless counts per change type (invocations, passes, forwarder entries, webhook calls, fanned-out batches): test/bench/results/side-b-10-profile.json (side B, 10 Clusters, 2026-11-28, 2 × Intel(R) Xeon(R) Processor, 24 GiB RAM, linux/x64, Node v22.23.3); durations, the idle window and A's figures: test/bench/results/side-by-side-100-epyc.json",
    'forwarder entries (54) and webhook calls (26) over the change phases are counted per phase',
    'invocation durations are recorded over the change phases together (mean per invocation) and over creation, in test/bench/results/side-by-side-100-epyc.json',
  ],
  idle: {
    source:
      'B: test/bench/results/side-b-30-idle.json, idle window (25 min, 30 Clusters); A: test/bench/results/side-by-side-100-epyc.json, idle window (10 min)',
    eventInvocationsPerClusterHour: 0,
    forwarderEventsPerClusterHour: 0,
    webhookCallsPerClusterHour: 0,
    wakeUpsPerClusterHour: 0,
    replacedCpuSecondsPerHour: 5.8799,
    replacedRssMiB: 53.7821,
  },
  invocationMs: {
    change: 678.3178,
    create: 2277.988,
    tick: 26.2665,
  },
  passMs: {
    change: {
      billedMs: 600.275,
      cpuMs: 55,
    },
    create: {
      billedMs: 1170.5,
      cpuMs: 70,
    },
    skip: {
      billedMs: 89.3,
      cpuMs: 11,
    },
    coldCpuMs: 720,
    maxRssMiB: 151,
    functions: ['topology', 'addons'],
    source:
      "test/bench/results/passes-rie.json 2026-11-28, the topology and addons bundles in aws-lambda-rie + aws-lambda-ric on Node 22 against a real kube-apiserver and DynamoDB Local, 2 × Intel(R) Xeon(R) Processor, 24 GiB RAM, linux/x64, Node v22.23.3, 20 samples of each pass (load average 23–31.98): a change pass 600.275 ms billed, CPU 55 ms; a new Cluster's first pass 1170.5 ms billed, CPU 70 ms; a skipped pass 89.3 ms billed, CPU 11 ms",
  },
  webhookCallMs: {
    value: 18.27,
    basis: 'measured',
    cpuMs: 4.42,
    source:
      'test/bench/results/webhooks-rie.json 2026-11-28, the webhooks bundle in aws-lambda-rie + aws-lambda-ric on Node 22 against a real kube-apiserver, 2 × Intel(R) Xeon(R) Processor, 24 GiB RAM, linux/x64, Node v22.23.3: 240 Cluster admission calls (a variable change, a version upgrade, a replica change, an annotation; each /mutate then /validate, 30 samples spaced beyond the ClusterClass cache TTL), mean 17.82 ms, billed 18.27 ms (rounded up per call), CPU 4.42 ms (load average 31.04–28.97)',
  },
  coldStartMs: {
    controller: 2768.432,
    webhooks: 1340.782,
    source:
      'test/bench/results/init-rie.json 2026-11-27, the bundles in aws-lambda-rie + aws-lambda-ric on Node 22, 2 × Intel(R) Xeon(R) Processor, 24 GiB RAM, linux/x64, Node v22.23.3: topology INIT 2223 ms + first invocation 546 ms over a warm one (medians of 10, load average 30–32); webhooks INIT 1215 ms + first invocation 126 ms over a warm one (medians of 10, load average 20–21)',
  },
  forwarder: {
    source:
      'test/bench/results/forwarder-floor.json 2026-11-28: the forwarder bundled and run as its image (--jitless --no-expose-wasm --single-threaded --max-semi-space-size=1 --optimize-for-size), 2 × Intel(R) Xeon(R) Processor; RSS after 120 s idle; CPU idle over that window and per entry in a burst of Cluster spec changes',
    rss: [
      {
        watchedObjects: 802,
        rssMiB: 61.6,
      },
      {
        watchedObjects: 10002,
        rssMiB: 64.7,
      },
    ],
    idleCpu: [
      {
        watchedObjects: 802,
        cpuSecondsPerHour: 1.5,
      },
      {
        watchedObjects: 10002,
        cpuSecondsPerHour: 3,
      },
    ],
    cpuMsPerEntry: 2.234,
  },
  dynamoDb: {
    source:
      'test/bench/results/latest.json 2026-11-25: a forced topology pass, a skipped one, a round of the three ticks (1 unit per read request)',
    passRunReadUnits: 1,
    passRunWriteUnits: 5,
    passSkippedReadUnits: 1,
    tickReadUnits: 4.3333,
  },
};
