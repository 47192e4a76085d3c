import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { computeCrd } from '#shared/api/gen/compute-crd.ts';
import {
  Provider,
  computeManifestLabel,
  operatorKinds,
  providerKindNames,
  providerKinds,
} from '#shared/api/operator/v1alpha2/provider.ts';
import { parseObject } from '#shared/api/parse.ts';
import { ValidationError } from '#shared/errors/index.ts';

const raw = {
  apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
  kind: 'InfrastructureProvider',
  metadata: { name: 'aws', namespace: 'capa-system' },
  spec: {
    version: 'v2.7.1',
    paused: false,
    configSecret: { name: 'aws-variables' },
    manager: {
      featureGates: { MachinePool: true },
      syncPeriod: '10m0s',
      leaderElection: { leaderElect: true, leaseDuration: '15s' },
    },
    deployment: {
      replicas: 2,
      containers: [
        { name: 'manager', imageUrl: 'my.io/capa:v2.7.1', resources: { limits: { cpu: '1', memory: 512 } } },
      ],
    },
    fetchConfig: { selector: { matchLabels: { provider: 'aws' } } },
    patches: [{ target: { kind: 'Deployment' }, patch: 'spec: {}' }],
  },
  status: {
    installedVersion: 'v2.7.0',
    contract: 'v1beta1',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  },
};

describe('Provider', () => {
  test('parses a full InfrastructureProvider', () => {
    const p = parseObject(Provider, 'InfrastructureProvider', raw);
    assert.equal(p.kind, 'InfrastructureProvider');
    assert.equal(p.spec?.deployment?.containers?.[0]?.imageUrl, 'my.io/capa:v2.7.1');
  });

  const invalid: ReadonlyArray<{ name: string; spec: Record<string, unknown>; want: RegExp }> = [
    {
      name: 'refuses patches together with manifestPatches',
      spec: { patches: [], manifestPatches: [] },
      want: /Cannot set both 'patches' and 'manifestPatches'/,
    },
    {
      name: 'refuses a fetchConfig with two sources',
      spec: { fetchConfig: { url: 'https://x', oci: 'ghcr.io/x' } },
      want: /one and only one of \{oci, url, selector\}/,
    },
    {
      name: 'refuses maxConcurrentReconciles below 1',
      spec: { manager: { maxConcurrentReconciles: 0 } },
      want: /spec\.manager\.maxConcurrentReconciles/,
    },
    {
      name: 'refuses a malformed syncPeriod',
      spec: { manager: { syncPeriod: 'ten minutes' } },
      want: /spec\.manager\.syncPeriod/,
    },
  ];
  for (const c of invalid) {
    test(c.name, () => {
      assert.throws(
        () => parseObject(Provider, 'InfrastructureProvider', { ...raw, spec: c.spec }),
        (err: unknown) => err instanceof ValidationError && c.want.test(err.message),
      );
    });
  }

  test('refuses an unknown kind', () =>
    assert.throws(() => parseObject(Provider, 'Provider', { ...raw, kind: 'FooProvider' }), ValidationError));
});

describe('providerKinds', () => {
  const labels: ReadonlyArray<[keyof typeof providerKinds, string]> = [
    ['CoreProvider', 'cluster-api'],
    ['BootstrapProvider', 'bootstrap-cluster-api'],
    ['ControlPlaneProvider', 'control-plane-cluster-api'],
    ['InfrastructureProvider', 'infrastructure-cluster-api'],
    ['AddonProvider', 'addon-cluster-api'],
    ['IPAMProvider', 'ipam-cluster-api'],
    ['RuntimeExtensionProvider', 'runtime-extension-cluster-api'],
  ];
  for (const [kind, want] of labels)
    test(`labels a ${kind} ${want}`, () => assert.equal(computeManifestLabel(kind, 'cluster-api'), want));

  test('maps every kind to the clusterctl type of the same name', () => {
    for (const kind of providerKindNames) assert.equal(providerKinds[kind].providerType, kind);
  });

  test('generates a structural CRD for every operator kind', () => {
    for (const info of operatorKinds) {
      const crd = computeCrd(info) as { spec?: { names?: { plural?: string } } };
      assert.equal(crd.spec?.names?.plural, providerKinds[info.kind as keyof typeof providerKinds].plural);
    }
  });
});
