import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  computeFeatureGateArgs,
  computeHandoffComponents,
  handoffAnnotation,
  isHandoffEnabled,
  listChangedObjects,
} from '#shared/providers/desired/compute-handoff.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

const inventory = { 'clusterctl.cluster.x-k8s.io': '', 'cluster.x-k8s.io/provider': 'cluster-api' };

function manager(name: string, namespace: string, gates: string, serviceAccountName?: string): ComponentObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { ...inventory, 'cluster.x-k8s.io/provider': 'x' } },
    spec: {
      template: {
        spec: {
          ...(serviceAccountName ? { serviceAccountName } : {}),
          containers: [{ name: 'manager', args: ['--leader-elect', `--feature-gates=${gates}`] }],
        },
      },
    },
  };
}

const coreWebhooks: ComponentObject = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'capi-validating-webhook-configuration' },
  webhooks: [
    { name: 'validation.cluster.cluster.x-k8s.io' },
    { name: 'validation.clusterclass.cluster.x-k8s.io' },
    { name: 'validation.machine.cluster.x-k8s.io' },
  ],
};

const args = (o: ComponentObject | undefined) =>
  (o?.['spec'] as { template: { spec: { containers: { args: string[] }[] } } }).template.spec.containers[0]?.args;

describe('computeFeatureGateArgs', () => {
  const table: [string, string[], boolean, string[]][] = [
    [
      'sets the gate in place, keeping the order of the others',
      ['--feature-gates=MachinePool=true,ClusterTopology=false,PriorityQueue=true'],
      true,
      ['--feature-gates=MachinePool=true,ClusterTopology=true,PriorityQueue=true'],
    ],
    [
      'leaves args without the gate alone (a manager that does not know it)',
      ['--feature-gates=MachinePool=true'],
      true,
      ['--feature-gates=MachinePool=true'],
    ],
    ['leaves args without --feature-gates alone', ['--leader-elect'], false, ['--leader-elect']],
    [
      'turns the gate off for the core manager',
      ['--feature-gates=ClusterTopology=true'],
      false,
      ['--feature-gates=ClusterTopology=false'],
    ],
  ];
  for (const [name, input, value, want] of table)
    test(name, () => assert.deepEqual(computeFeatureGateArgs(deepFreeze(input), 'ClusterTopology', value), want));
});

describe('isHandoffEnabled', () => {
  test('is on by default', () => assert.equal(isHandoffEnabled({ metadata: {} }), true));
  test('is off with the opt-out annotation', () =>
    assert.equal(isHandoffEnabled({ metadata: { annotations: { [handoffAnnotation]: 'disabled' } } }), false));
  test('another value keeps it on', () =>
    assert.equal(isHandoffEnabled({ metadata: { annotations: { [handoffAnnotation]: 'enabled' } } }), true));
});

describe('computeHandoffComponents', () => {
  const core = deepFreeze([
    coreWebhooks,
    manager('capi-controller-manager', 'capi-system', 'MachinePool=true,ClusterTopology=true', 'capi-manager'),
  ]);

  test('core: webhooks get matchConditions, the gate goes off, the policy names the manager ServiceAccount', () => {
    const out = computeHandoffComponents('CoreProvider', core);
    assert.deepEqual(
      out.map((o) => `${o.kind} ${o.metadata.name}`),
      [
        'ValidatingWebhookConfiguration capi-validating-webhook-configuration',
        'ValidatingAdmissionPolicy capi-system-capi-serverless-clusterresourceset-handoff',
        'ValidatingAdmissionPolicyBinding capi-system-capi-serverless-clusterresourceset-handoff',
        'ValidatingAdmissionPolicy capi-system-capi-serverless-before-cluster-delete-handoff',
        'ValidatingAdmissionPolicyBinding capi-system-capi-serverless-before-cluster-delete-handoff',
        'Deployment capi-controller-manager',
      ],
    );
    const hooks = out[0]?.['webhooks'] as { name: string; matchConditions?: unknown }[];
    assert.deepEqual(
      hooks.map((w) => w.matchConditions),
      [
        [
          {
            name: 'capi-serverless-owns-topology',
            expression: "request.operation == 'DELETE' || !has(object.spec.topology)",
          },
        ],
        [{ name: 'capi-serverless-owns-clusterclass', expression: 'false' }],
        undefined,
      ],
    );
    const policy = out[1]?.['spec'] as { matchConditions: { expression: string }[] };
    assert.equal(
      policy.matchConditions[0]?.expression,
      "request.userInfo.username == 'system:serviceaccount:capi-system:capi-manager'",
    );
    assert.deepEqual(out[1]?.metadata.labels, {
      'clusterctl.cluster.x-k8s.io': '',
      'cluster.x-k8s.io/provider': 'x',
    });
    const hold = out[3]?.['spec'] as { matchConditions: { expression: string }[]; paramKind: unknown };
    assert.equal(hold.matchConditions[0]?.expression, policy.matchConditions[0]?.expression);
    assert.deepEqual(hold.paramKind, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' });
    assert.deepEqual(out[4]?.['spec'], {
      policyName: 'capi-system-capi-serverless-before-cluster-delete-handoff',
      paramRef: { selector: {}, parameterNotFoundAction: 'Allow' },
      validationActions: ['Deny'],
    });
    assert.deepEqual(out[3]?.metadata.labels, out[1]?.metadata.labels);
    assert.deepEqual(args(out[5]), ['--leader-elect', '--feature-gates=MachinePool=true,ClusterTopology=false']);
  });

  test('is idempotent: applied twice, nothing changes', () => {
    const once = deepFreeze(computeHandoffComponents('CoreProvider', core));
    assert.deepEqual(computeHandoffComponents('CoreProvider', once), once);
    assert.deepEqual(listChangedObjects(once, computeHandoffComponents('CoreProvider', once)), []);
  });

  test('an existing policy of that name gets the handoff spec in place', () => {
    const once = computeHandoffComponents('CoreProvider', core);
    const stale = deepFreeze(
      once.map((o) => (o.kind === 'ValidatingAdmissionPolicy' ? { ...o, spec: { old: true }, status: {} } : o)),
    );
    const out = computeHandoffComponents('CoreProvider', stale);
    assert.deepEqual(
      listChangedObjects(stale, out).map((o) => `${o.kind} ${o.metadata.name}`),
      [
        'ValidatingAdmissionPolicy capi-system-capi-serverless-clusterresourceset-handoff',
        'ValidatingAdmissionPolicy capi-system-capi-serverless-before-cluster-delete-handoff',
      ],
    );
    assert.deepEqual(out[1]?.['status'], {});
  });

  test('the policy follows the namespace the core provider is installed in', () => {
    const out = computeHandoffComponents('CoreProvider', [manager('capi-controller-manager', 'platform-capi', '')]);
    assert.equal(out[0]?.metadata.name, 'platform-capi-capi-serverless-clusterresourceset-handoff');
    assert.equal(out[2]?.metadata.name, 'platform-capi-capi-serverless-before-cluster-delete-handoff');
    const policy = out[0]?.['spec'] as { matchConditions: { expression: string }[] };
    assert.match(policy.matchConditions[0]?.expression ?? '', /system:serviceaccount:platform-capi:default'$/);
  });

  test('control plane and infrastructure providers: the gate goes on where the manager declares it', () => {
    const kcp = deepFreeze([manager('capi-kubeadm-control-plane-controller-manager', 'k', 'ClusterTopology=false')]);
    assert.deepEqual(args(computeHandoffComponents('ControlPlaneProvider', kcp)[0]), [
      '--leader-elect',
      '--feature-gates=ClusterTopology=true',
    ]);
  });

  test('a provider whose manager has no ClusterTopology gate is left as it is', () => {
    const bootstrap = deepFreeze([manager('capi-kubeadm-bootstrap-controller-manager', 'b', 'MachinePool=true')]);
    const out = computeHandoffComponents('BootstrapProvider', bootstrap);
    assert.deepEqual(listChangedObjects(bootstrap, out), []);
    assert.equal(out[0], bootstrap[0]);
  });
});

describe('computeHandoffComponents with a policy from the operator', () => {
  test('a policy of that name carrying a namespace (clusterctl treats the kind as namespaced) is kept in place', () => {
    const core = [
      manager('capi-controller-manager', 'capi-system', 'ClusterTopology=false', 'capi-manager'),
      ...computeHandoffComponents('CoreProvider', [
        manager('capi-controller-manager', 'capi-system', '', 'capi-manager'),
      ])
        .filter((o) => o.kind !== 'Deployment')
        .map((o) => ({ ...o, metadata: { ...o.metadata, namespace: 'capi-system' } })),
    ];
    const out = computeHandoffComponents('CoreProvider', deepFreeze(core));
    assert.deepEqual(listChangedObjects(core, out), []);
  });
});
