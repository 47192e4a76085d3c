// Property tests, as upstream's own conversion fuzz tests (spoke-hub-spoke and hub-spoke-hub): whatever v1beta1
// object we generate comes back identical through v1beta2, and the other way round through the annotation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  ConversionDataAnnotation,
  convertFromHub,
  convertToHub,
  type Unstructured,
} from '#shared/api/conversion/index.ts';

const refs = {
  DockerCluster: 'infrastructure.cluster.x-k8s.io/v1beta1',
  KubeadmControlPlane: 'controlplane.cluster.x-k8s.io/v1beta2',
} as const;
const apiVersionFor = (group: string, kind: string) => {
  const apiVersion = (refs as Record<string, string>)[kind];
  return apiVersion?.startsWith(`${group}/`) === true ? apiVersion : undefined;
};

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const seconds = fc.integer({ min: 0, max: 100_000 });
/** Durations as Go writes them, the only form that survives a round trip (as upstream's fuzzer produces). */
const duration = seconds.map((s) => {
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (s === 0) return '0s';
  if (h > 0) return `${h}h${m}m${sec}s`;
  if (m > 0) return `${m}m${sec}s`;
  return `${sec}s`;
});
const intOrPercent = fc.oneof(fc.integer({ min: 0, max: 10 }), fc.constantFrom('10%', '50%'));
const condition = fc.record({ type: name, status: fc.constantFrom('True', 'False', 'Unknown'), timeout: duration });
const machineHealthCheck = fc.record(
  {
    unhealthyConditions: fc.array(condition, { minLength: 1, maxLength: 2 }),
    unhealthyMachineConditions: fc.array(condition, { minLength: 1, maxLength: 2 }),
    nodeStartupTimeout: duration,
    maxUnhealthy: intOrPercent,
    unhealthyRange: fc.constantFrom('[1-3]', '[2-5]'),
    remediationTemplate: fc.record({
      apiVersion: fc.constant('x.io/v1'),
      kind: fc.constant('RT'),
      namespace: fc.constant('ns'),
      name,
    }),
  },
  { requiredKeys: [] },
);
const timeouts = { nodeDrainTimeout: duration, nodeVolumeDetachTimeout: duration, nodeDeletionTimeout: duration };
const machineDeployment = fc.record(
  {
    class: name,
    name,
    replicas: fc.integer({ min: 0, max: 5 }),
    failureDomain: name,
    minReadySeconds: fc.integer({ min: 0, max: 5 }),
    machineHealthCheck: fc.tuple(machineHealthCheck, fc.boolean()).map(([m, enable]) => ({ ...m, enable })),
    strategy: fc.record(
      {
        type: fc.constantFrom('RollingUpdate', 'OnDelete'),
        rollingUpdate: fc.record(
          {
            maxUnavailable: intOrPercent,
            maxSurge: intOrPercent,
            deletePolicy: fc.constantFrom('Random', 'Newest', 'Oldest'),
          },
          { requiredKeys: ['deletePolicy'] },
        ),
        remediation: fc.record({ maxInFlight: intOrPercent }),
      },
      { requiredKeys: ['type'] },
    ),
    ...timeouts,
  },
  { requiredKeys: ['class', 'name'] },
);
const v1beta1Cluster = fc.record(
  {
    paused: fc.constant(true),
    infrastructureRef: name.map((n) => ({
      apiVersion: refs.DockerCluster,
      kind: 'DockerCluster',
      namespace: 'ns',
      name: n,
    })),
    controlPlaneRef: name.map((n) => ({
      apiVersion: refs.KubeadmControlPlane,
      kind: 'KubeadmControlPlane',
      namespace: 'ns',
      name: n,
    })),
    topology: fc.record(
      {
        class: name,
        classNamespace: name,
        version: fc.constantFrom('v1.33.0', 'v1.34.4'),
        controlPlane: fc.record(
          {
            replicas: fc.integer({ min: 1, max: 5 }),
            machineHealthCheck: fc.tuple(machineHealthCheck, fc.boolean()).map(([m, enable]) => ({ ...m, enable })),
            ...timeouts,
          },
          { requiredKeys: [] },
        ),
        workers: fc.record({ machineDeployments: fc.array(machineDeployment, { minLength: 1, maxLength: 3 }) }),
        variables: fc.array(fc.record({ name, value: fc.jsonValue() }), { maxLength: 2 }),
      },
      { requiredKeys: ['class', 'version', 'controlPlane'] },
    ),
  },
  { requiredKeys: [] },
);

function cluster(apiVersion: string, spec: Unstructured): Unstructured {
  return { apiVersion, kind: 'Cluster', metadata: { namespace: 'ns', name: 'c1' }, spec };
}

function withoutConversionData(object: Unstructured): Unstructured {
  const metadata = { ...(object['metadata'] as Unstructured) };
  const annotations = { ...(metadata['annotations'] as Unstructured) };
  delete annotations[ConversionDataAnnotation];
  if (Object.keys(annotations).length === 0) delete metadata['annotations'];
  return { ...object, metadata };
}

/** Drops what Go's omitempty would not write, so generated objects compare as they would on the wire. */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .map(([k, v]) => [k, normalise(v)] as const)
      .filter(
        ([, v]) =>
          v !== undefined && !(typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0),
      );
    return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
  }
  return value;
}

describe('Cluster round trips (upstream fuzz tests)', () => {
  test('v1beta1 → v1beta2 → v1beta1 gives the same object', () => {
    fc.assert(
      fc.property(v1beta1Cluster, (spec) => {
        const spoke = cluster('cluster.x-k8s.io/v1beta1', spec);
        const back = withoutConversionData(convertFromHub(convertToHub(spoke), apiVersionFor));
        assert.deepEqual(normalise(back), normalise(spoke));
      }),
      { numRuns: 300 },
    );
  });

  test('v1beta2 → v1beta1 → v1beta2 gives the same object, the annotation restoring what v1beta1 drops', () => {
    fc.assert(
      fc.property(v1beta1Cluster, fc.boolean(), (spec, paused) => {
        // NOTE: hub objects generated as the hub of a v1beta1 object, then given an explicit paused false/true.
        const hub = { ...convertToHub(cluster('cluster.x-k8s.io/v1beta1', spec)) };
        hub['spec'] = { ...(hub['spec'] as Unstructured), paused };
        const back = convertToHub(convertFromHub(hub, apiVersionFor));
        assert.deepEqual(normalise(back), normalise(hub));
      }),
      { numRuns: 300 },
    );
  });

  test('converting twice gives the same result, and only ConversionErrors escape on garbage input', () => {
    fc.assert(
      fc.property(fc.dictionary(name, fc.jsonValue()), (spec) => {
        const spoke = cluster('cluster.x-k8s.io/v1beta1', spec as Unstructured);
        let first: Unstructured | undefined;
        try {
          first = convertToHub(spoke);
        } catch (err) {
          assert.equal((err as Error).name, 'ConversionError');
          return;
        }
        assert.deepEqual(convertToHub(spoke), first);
      }),
      { numRuns: 300 },
    );
  });
});
