import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProviderSpec } from '#shared/api/operator/v1alpha2/provider.ts';
import { computeProviderComponents } from '#shared/providers/desired/compute-provider-components.ts';
import type { ProviderComponentsInput } from '#shared/providers/desired/compute-provider-components.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import { MissingVariablesError, ProviderComponentsError } from '#shared/providers/desired/provider-components-error.ts';
import { componentsYaml, deepFreeze, provider } from '#test/support/fixtures/providers.ts';

const vars = deepFreeze({ DOCKER_HOST: 'unix:///var/run/docker.sock' });

function run(spec: ProviderSpec = {}, extra: Partial<ProviderComponentsInput> = {}) {
  return computeProviderComponents(
    deepFreeze({ provider: provider(spec), version: 'v1.9.0', componentsYaml, configVariables: vars, ...extra }),
  );
}

function find(objs: readonly ComponentObject[], kind: string, name?: string): ComponentObject {
  const o = objs.find((x) => x.kind === kind && (name === undefined || x.metadata.name === name));
  assert.ok(o, `${kind} ${name ?? ''} not found`);
  return o;
}

type Container = {
  name: string;
  image?: string;
  args?: string[];
  env?: { name: string; value?: string }[];
  command?: string[];
  resources?: unknown;
};
function manager(objs: readonly ComponentObject[]): Container {
  const d = find(objs, 'Deployment') as unknown as { spec: { template: { spec: { containers: Container[] } } } };
  const c = d.spec.template.spec.containers.find((x) => x.name === 'manager');
  assert.ok(c);
  return c;
}
const podSpec = (objs: readonly ComponentObject[]) =>
  (find(objs, 'Deployment') as unknown as { spec: { replicas?: number; template: { spec: Record<string, unknown> } } })
    .spec;

describe('computeProviderComponents', () => {
  test('substitutes variables and their defaults into the manifests', () => {
    const c = manager(run().objects);
    assert.ok(c.args?.includes('--diagnostics-address=:8443'));
    assert.deepEqual(c.env?.[0], { name: 'DOCKER_HOST', value: 'unix:///var/run/docker.sock' });
  });

  test('reports every missing variable of the components together', () => {
    assert.throws(
      () =>
        computeProviderComponents({
          provider: provider(),
          version: 'v1.9.0',
          componentsYaml: 'a: ${Z}\n---\nb: ${DOCKER_HOST} ${A}',
          configVariables: {},
        }),
      (err: unknown) =>
        err instanceof MissingVariablesError &&
        err.missing.join() === 'A,DOCKER_HOST,Z' &&
        /InfrastructureProvider capd-ops\/docker v1\.9\.0/.test(err.message),
    );
  });

  test('lists the variables the components use', () => {
    assert.deepEqual(run().variables, [
      'CAPI_DIAGNOSTICS_ADDRESS',
      'CAPI_INSECURE_DIAGNOSTICS',
      'CLUSTER_TOPOLOGY',
      'DOCKER_HOST',
      'EXP_MACHINE_POOL',
    ]);
  });

  test('moves every namespaced object into the provider namespace and drops the Namespace object', () => {
    const { objects, targetNamespace } = run();
    assert.equal(targetNamespace, 'capd-ops');
    assert.equal(objects.filter((o) => o.kind === 'Namespace').length, 0);
    for (const kind of ['ServiceAccount', 'Role', 'RoleBinding', 'Service', 'Deployment', 'Certificate', 'Issuer']) {
      assert.equal(find(objects, kind).metadata.namespace, 'capd-ops', kind);
    }
    for (const kind of [
      'ClusterRole',
      'ClusterRoleBinding',
      'CustomResourceDefinition',
      'MutatingWebhookConfiguration',
    ]) {
      assert.equal(find(objects, kind).metadata.namespace, undefined, kind);
    }
  });

  test('rewrites ServiceAccount subjects of ClusterRoleBindings and RoleBindings, not Groups', () => {
    const { objects } = run();
    const crb = find(objects, 'ClusterRoleBinding') as unknown as { subjects: { kind: string; namespace?: string }[] };
    assert.deepEqual(crb.subjects, [
      { kind: 'ServiceAccount', name: 'capd-manager', namespace: 'capd-ops' },
      { kind: 'Group', name: 'system:masters' },
    ]);
    const rb = find(objects, 'RoleBinding') as unknown as { subjects: { namespace?: string }[] };
    assert.equal(rb.subjects[0]?.namespace, 'capd-ops');
  });

  test('points webhook services, CRD conversion and CA injection at the new namespace', () => {
    const { objects } = run();
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
      const w = find(objects, kind) as unknown as { webhooks: { clientConfig: { service: { namespace: string } } }[] };
      assert.equal(w.webhooks[0]?.clientConfig.service.namespace, 'capd-ops');
      assert.equal(
        find(objects, kind).metadata.annotations?.['cert-manager.io/inject-ca-from'],
        'capd-ops/capd-serving-cert',
      );
    }
    const crd = find(objects, 'CustomResourceDefinition') as unknown as {
      spec: { conversion: { webhook: { clientConfig: { service: { namespace: string } } } } };
    };
    assert.equal(crd.spec.conversion.webhook.clientConfig.service.namespace, 'capd-ops');
    const cert = find(objects, 'Certificate') as unknown as { spec: { dnsNames: string[] } };
    assert.deepEqual(cert.spec.dnsNames, [
      'capd-webhook-service.capd-ops.svc',
      'capd-webhook-service.capd-ops.svc.cluster.local',
    ]);
  });

  test('labels every object for the inventory and owns the namespaced ones', () => {
    const { objects, manifestLabel } = run();
    assert.equal(manifestLabel, 'infrastructure-docker');
    for (const o of objects) {
      assert.equal(o.metadata.labels?.['cluster.x-k8s.io/provider'], 'infrastructure-docker');
      assert.equal(o.metadata.labels?.['clusterctl.cluster.x-k8s.io'], '');
    }
    assert.deepEqual(find(objects, 'Deployment').metadata['ownerReferences'], [
      {
        apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
        kind: 'InfrastructureProvider',
        name: 'docker',
        uid: 'uid-1234',
      },
    ]);
    assert.equal(find(objects, 'ClusterRole').metadata['ownerReferences'], undefined);
  });

  test('orders cert-manager objects first, then CRDs, then the rest in file order', () => {
    const kinds = run().objects.map((o) => o.kind);
    assert.deepEqual(kinds.slice(0, 3), ['Certificate', 'Issuer', 'CustomResourceDefinition']);
    assert.deepEqual(kinds.slice(3, 6), ['ServiceAccount', 'Role', 'ClusterRole']);
  });

  test('gives the same output for the same input', () => {
    assert.deepEqual(
      run({ manager: { featureGates: { B: true, A: false } } }),
      run({ manager: { featureGates: { B: true, A: false } } }),
    );
  });

  test('merges feature gates into the existing flag, sorted, user values winning', () => {
    const args =
      manager(run({ manager: { featureGates: { MachinePool: false, KubeadmBootstrapFormatIgnition: true } } }).objects)
        .args ?? [];
    assert.equal(args.filter((a) => a.startsWith('--feature-gates')).length, 1);
    assert.ok(
      args.includes('--feature-gates=ClusterTopology=false,KubeadmBootstrapFormatIgnition=true,MachinePool=false'),
    );
  });

  test('lets manager fields beat an existing bare --leader-elect and container args', () => {
    const spec: ProviderSpec = {
      deployment: { containers: [{ name: 'manager', args: { '--v': '9', '--sync-period': '1s' } }] },
      manager: { leaderElection: { leaderElect: false }, verbosity: 4, syncPeriod: '10m0s' },
    };
    const args = manager(run(spec).objects).args ?? [];
    assert.ok(args.includes('--leader-elect=false'));
    assert.ok(!args.includes('--leader-elect'));
    assert.ok(args.includes('--v=4'));
    assert.ok(args.includes('--sync-period=600s'));
    assert.ok(!args.includes('--v=9'));
  });

  test('applies deployment overrides: replicas, placement, image, command, resources and env merged by name', () => {
    const spec: ProviderSpec = {
      deployment: {
        replicas: 3,
        nodeSelector: { role: 'infra' },
        tolerations: [{ key: 'dedicated', operator: 'Exists' }],
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
        containers: [
          {
            name: 'manager',
            imageUrl: 'my.registry.io/capd-manager:dev',
            command: ['/manager', '--debug'],
            resources: { limits: { cpu: '500m' } },
            env: [
              { name: 'DOCKER_HOST', value: 'tcp://docker:2375' },
              { name: 'EXTRA', value: 'x' },
            ],
          },
        ],
      },
    };
    const objs = run(spec).objects;
    const s = podSpec(objs);
    assert.equal(s.replicas, 3);
    assert.deepEqual(s.template.spec['nodeSelector'], { role: 'infra' });
    assert.deepEqual(s.template.spec['tolerations'], [{ key: 'dedicated', operator: 'Exists' }]);
    assert.ok(s.template.spec['affinity']);
    const c = manager(objs);
    assert.equal(c.image, 'my.registry.io/capd-manager:dev');
    assert.deepEqual(c.command, ['/manager', '--debug']);
    assert.deepEqual(c.resources, { limits: { cpu: '500m' } });
    assert.deepEqual(
      c.env?.map((e) => e.name),
      ['POD_NAMESPACE', 'DOCKER_HOST', 'EXTRA'],
    );
    assert.equal(c.env?.find((e) => e.name === 'DOCKER_HOST')?.value, 'tcp://docker:2375');
  });

  test('refuses a container override for a container the Deployment lacks', () => {
    assert.throws(
      () => run({ deployment: { containers: [{ name: 'sidecar' }] } }),
      (err: unknown) =>
        err instanceof ProviderComponentsError &&
        err.reason === 'ComponentsCustomizationError' &&
        /cannot find container "sidecar"/.test(err.message),
    );
  });

  test('applies manifestPatches to the objects they match', () => {
    const patch =
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: capd-webhook-service\nspec:\n  selector: null\n  ports:\n  - port: 8443\n';
    const svc = find(run({ manifestPatches: [patch] }).objects, 'Service') as unknown as {
      spec: { ports: unknown[]; selector?: unknown };
    };
    assert.deepEqual(svc.spec.ports, [{ port: 8443 }]);
    assert.equal(svc.spec.selector, undefined);
  });

  test('applies patches with a target selector, RFC 6902 and merge', () => {
    const objs = run({
      patches: [
        { target: { group: 'apps', kind: 'Deployment' }, patch: '- op: replace\n  path: /spec/replicas\n  value: 5\n' },
        {
          target: { kind: 'Service', labelSelector: 'cluster.x-k8s.io/provider=infrastructure-docker' },
          patch: 'metadata:\n  labels:\n    extra: "yes"\n',
        },
      ],
    }).objects;
    assert.equal(podSpec(objs).replicas, 5);
    assert.equal(find(objs, 'Service').metadata.labels?.['extra'], 'yes');
    assert.equal(find(objs, 'Role').metadata.labels?.['extra'], undefined);
  });

  test('refuses patches and manifestPatches together', () => {
    assert.throws(
      () => run({ patches: [{ patch: 'a: 1' }], manifestPatches: ['kind: Service'] }),
      /cannot use both 'patches' and 'manifestPatches'/,
    );
  });

  test('appends additional manifests, processed like the components', () => {
    const extra =
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: elsewhere\ndata:\n  host: ${DOCKER_HOST}\n';
    const cm = find(run({}, { additionalManifestsYaml: extra }).objects, 'ConfigMap');
    assert.equal(cm.metadata.namespace, 'capd-ops');
    assert.deepEqual(cm['data'], { host: 'unix:///var/run/docker.sock' });
    assert.equal(cm.metadata.labels?.['cluster.x-k8s.io/provider'], 'infrastructure-docker');
  });

  test('applies image overrides from the config Secret images key', () => {
    const configVariables = {
      ...vars,
      images: 'infrastructure-docker:\n  repository: mirror.example.com/capi\n  tag: v1.9.1\n',
    };
    const { objects, images } = run({}, { configVariables });
    assert.equal(manager(objects).image, 'mirror.example.com/capi/capd-manager:v1.9.1');
    assert.deepEqual(images, ['mirror.example.com/capi/capd-manager:v1.9.1']);
  });

  test('customises only additionalDeployments entries when there are several Deployments', () => {
    const second =
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: helper\n  namespace: x\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: registry.k8s.io/helper:v1\n';
    const objs = run(
      { deployment: { replicas: 2 }, additionalDeployments: { helper: { deployment: { replicas: 7 } } } },
      { additionalManifestsYaml: second },
    ).objects;
    const reps = objs
      .filter((o) => o.kind === 'Deployment')
      .map((o) => [o.metadata.name, (o['spec'] as { replicas?: number }).replicas]);
    assert.deepEqual(reps, [
      ['capd-controller-manager', 2],
      ['helper', 7],
    ]);
  });
});
