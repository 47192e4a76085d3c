// Upstream Cluster API's own in-memory e2e ClusterClass and topology Cluster (test/e2e/data/infrastructure-docker/main
// of the published test module, read from the harness cache at run time; nothing upstream is copied here), with
// clusterctl's variable substitution. Given an `extensionConfigName`, the ClusterClass is upstream's unchanged: its
// external patches call upstream's test Runtime Extension registered under that name (the e2e, the differential's
// extension scenarios). Without one, one transformation: its external patches become inline patches, for the suites
// that run no extension (the differential but its extension scenarios, the side-by-side bench, the local mode's
// example, the switch-over).
//
// Every change to upstream's ClusterClass `in-memory` (computeInlinePatchClass):
//  1. `spec.patches[test-patch].external` (upstream's test extension, GeneratePatches + DiscoverVariables, in
//     test/extension/handlers/topologymutation/handler.go) is replaced by inline `definitions` doing what that
//     handler does for these templates:
//     - DevClusterTemplate: label `top-level-label-1` and annotation `top-level-annotation-1` on
//       `spec.template.metadata` (its `imageRepository` patch only touches the Docker backend: nothing to do here);
//     - KubeadmControlPlaneTemplate: the same label and annotation on `spec.template.metadata`; kubelet extraArgs
//       `v=2` and `node-labels=kubernetesVersion=<builtin.controlPlane.version with + as _>` on init and join; the
//       rollout strategy's maxSurge from `kubeadmControlPlaneMaxSurge` when it is set;
//     - its extraArgs `v=2` on the API server, controller manager and scheduler, and the KubeadmConfigTemplate's
//       kubelet extraArgs `v=2` on join, which depend on no variable, are written into those templates (change 4).
//     Not carried over: the handler's label/annotation on the KubeadmConfigTemplate's and DevMachineTemplate's own
//     `metadata` (an inline patch may only touch `spec`), the DevMachineTemplate `customImage` patch (Docker backend
//     only), and the `files`/`preKubeadmCommands`/`kubeadmConfigTemplateAnnotations` patches (the Cluster sets none
//     of those variables, so the handler leaves the templates alone).
//  2. The variables DiscoverVariables returns are declared inline in `spec.variables` (same names, schemas, defaults,
//     required flags and x-validation).
//  3. `spec.upgrade.external` (GenerateUpgradePlan of the same extension) is removed: the upgrade goes straight to
//     `spec.topology.version`, as without an upgrade-plan extension.
//  4. The two templates upstream leaves empty on purpose (KubeadmControlPlaneTemplate `in-memory-control-plane`,
//     KubeadmConfigTemplate `in-memory-default-worker-bootstraptemplate`) get the extension's variable-independent
//     changes as their `spec`: an inline JSON patch may only target paths below `/spec/` (upstream's ClusterClass
//     webhook, and ours), `add` needs the parent to exist (upstream's engine applies RFC 6902 patches without
//     creating missing parents, as ours does: on the empty template both fail with "doc is missing path"), and the
//     CRDs refuse an empty `spec.template` or `spec.template.spec` (minProperties 1). The extension patched typed Go
//     objects and needed none of this.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '#shared/kube/index.ts';
import { resolveUpstreamManifests } from '#test/support/harness/upstream-crds.ts';

/**
 * clusterctl's substitution: `${VAR}`, `${VAR:-default}` (a default may itself be `${OTHER}`); an unset variable
 * without a default is an error, as in clusterctl.
 */
export function substituteVariables(text: string, vars: Readonly<Record<string, string>>): string {
  const substitute = (t: string): string =>
    t.replace(/\$\{([A-Z_]+)(?::-((?:\$\{[A-Z_]+\}|[^}])*))?\}/g, (_m, name: string, fallback?: string) => {
      const value = vars[name] ?? (fallback === undefined ? undefined : substitute(fallback));
      if (value === undefined) throw new Error(`no value for \${${name}}`);
      return value;
    });
  return substitute(text);
}

function readDocuments(file: string, vars: Readonly<Record<string, string>>, namespace: string): KubeObject[] {
  return parseAllDocuments(substituteVariables(readFileSync(file, 'utf8'), vars))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null)
    .map((o) => ({ ...o, metadata: { ...o.metadata, namespace: o.metadata.namespace ?? namespace } }));
}

const topLevelMetadata = {
  labels: { 'top-level-label-1': 'top-level-label-value-1' },
  annotations: { 'top-level-annotation-1': 'top-level-annotation-value-1' },
};

// NOTE: the node label is the handler's strings.ReplaceAll(cpVersion, "+", "_") as a Go template.
const indent = (text: string, n: number) =>
  text
    .split('\n')
    .map((l) => (l ? ' '.repeat(n) + l : l))
    .join('\n');
const kubeletArgsTemplate = `- {name: v, value: "2"}
- {name: node-labels, value: 'kubernetesVersion={{ .builtin.controlPlane.version | replace "+" "_" }}'}
`;

/** The inline copy of the test extension's patches and variables (see the list at the top of this file). */
function computeInlinePatches() {
  const cpTemplate = {
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmControlPlaneTemplate',
    matchResources: { controlPlane: true },
  };
  return [
    {
      name: 'test-patch',
      definitions: [
        {
          selector: {
            apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
            kind: 'DevClusterTemplate',
            matchResources: { infrastructureCluster: true },
          },
          jsonPatches: [{ op: 'add', path: '/spec/template/metadata', value: topLevelMetadata }],
        },
        {
          selector: cpTemplate,
          jsonPatches: [
            { op: 'add', path: '/spec/template/metadata', value: topLevelMetadata },
            {
              op: 'add',
              path: '/spec/template/spec/kubeadmConfigSpec/initConfiguration',
              valueFrom: { template: `nodeRegistration:\n  kubeletExtraArgs:\n${indent(kubeletArgsTemplate, 4)}` },
            },
            {
              op: 'add',
              path: '/spec/template/spec/kubeadmConfigSpec/joinConfiguration',
              valueFrom: { template: `nodeRegistration:\n  kubeletExtraArgs:\n${indent(kubeletArgsTemplate, 4)}` },
            },
          ],
        },
      ],
    },
    {
      name: 'test-patch-kubeadm-control-plane-max-surge',
      enabledIf: '{{ if .kubeadmControlPlaneMaxSurge }}true{{ end }}',
      definitions: [
        {
          selector: cpTemplate,
          jsonPatches: [
            {
              op: 'add',
              path: '/spec/template/spec/rollout',
              valueFrom: {
                template:
                  'strategy:\n  type: RollingUpdate\n  rollingUpdate:\n    maxSurge: {{ .kubeadmControlPlaneMaxSurge }}\n',
              },
            },
          ],
        },
      ],
    },
  ];
}

/** The variables the test extension's DiscoverVariables returns, declared inline. */
const inlineVariables = [
  {
    name: 'kubeadmControlPlaneMaxSurge',
    required: false,
    schema: {
      openAPIV3Schema: {
        type: 'string',
        default: '',
        example: '0',
        description:
          'kubeadmControlPlaneMaxSurge is the maximum number of control planes that can be scheduled above or under the desired number of control plane machines.',
        'x-kubernetes-validations': [
          { rule: 'self == "" || self != ""', messageExpression: "'just a test expression, got %s'.format([self])" },
        ],
      },
    },
  },
  {
    name: 'files',
    required: false,
    schema: {
      openAPIV3Schema: {
        type: 'array',
        items: {
          type: 'object',
          properties: { path: { type: 'string' }, content: { type: 'string' }, contentFormat: { type: 'string' } },
        },
      },
    },
  },
  {
    name: 'preKubeadmCommands',
    required: false,
    schema: { openAPIV3Schema: { type: 'array', items: { type: 'string' } } },
  },
  {
    name: 'kubeadmConfigTemplateAnnotations',
    required: false,
    schema: { openAPIV3Schema: { type: 'object', additionalProperties: { type: 'string' } } },
  },
  {
    name: 'imageRepository',
    required: true,
    schema: {
      openAPIV3Schema: {
        type: 'string',
        example: 'kindest',
        'x-metadata': {
          labels: { objects: 'DevCluster' },
          annotations: {
            description: 'Gets set at DevCluster.Spec.Template.Spec.Backend.Docker.LoadBalancer.ImageRepository',
          },
        },
      },
    },
  },
];

/** Upstream's ClusterClass with the three changes listed at the top of this file; everything else as upstream wrote it. */
export function computeInlinePatchClass(clusterClass: KubeObject): KubeObject {
  const spec = clusterClass['spec'] as {
    patches?: { name: string; external?: unknown }[];
    upgrade?: { external?: unknown };
  } & Record<string, unknown>;
  if (!spec.patches?.some((p) => p.name === 'test-patch' && p.external))
    throw new Error('upstream ClusterClass in-memory no longer has the external test-patch this copy replaces');
  const { upgrade, patches: _external, ...rest } = spec;
  const { external: _plan, ...upgradeRest } = upgrade ?? {};
  return {
    ...clusterClass,
    spec: {
      ...rest,
      ...(Object.keys(upgradeRest).length > 0 ? { upgrade: upgradeRest } : {}),
      variables: inlineVariables,
      patches: computeInlinePatches(),
    },
  };
}

const verbose = [{ name: 'v', value: '2' }];

/**
 * Change 4: the two templates upstream leaves empty get the handler's variable-independent changes as their `spec`
 * (see the list at the top of this file).
 */
export function computeTemplateWithSpec(template: KubeObject): KubeObject {
  if (template['spec'] !== undefined) return template;
  if (template.kind === 'KubeadmControlPlaneTemplate')
    return {
      ...template,
      spec: {
        template: {
          spec: {
            kubeadmConfigSpec: {
              clusterConfiguration: {
                apiServer: { extraArgs: verbose },
                controllerManager: { extraArgs: verbose },
                scheduler: { extraArgs: verbose },
              },
            },
          },
        },
      },
    };
  if (template.kind === 'KubeadmConfigTemplate')
    return {
      ...template,
      spec: { template: { spec: { joinConfiguration: { nodeRegistration: { kubeletExtraArgs: verbose } } } } },
    };
  throw new Error(
    `upstream ${template.kind} ${template.metadata.name ?? ''} has no spec: this copy does not expect it`,
  );
}

export type InMemoryObjects = { readonly clusterClass: readonly KubeObject[]; readonly cluster: KubeObject };

/**
 * Upstream's `clusterclass-in-memory.yaml` and `cluster-template-in-memory-topology.yaml` substituted for one
 * Cluster: the ClusterClass as upstream wrote it when `extensionConfigName` names the ExtensionConfig of upstream's
 * test extension, with inline patches otherwise.
 *
 * @example
 * const { clusterClass, cluster } = computeInMemoryObjects({ namespace: 'e2e', clusterName: 'in-memory-1', kubernetesVersion: 'v1.34.0' });
 */
export function computeInMemoryObjects(opts: {
  namespace: string;
  clusterName: string;
  kubernetesVersion: string;
  controlPlaneMachineCount?: number;
  workerMachineCount?: number;
  /** The test extension's ExtensionConfig: keeps upstream's external patches (`generate-patches.<name>`, …). */
  extensionConfigName?: string;
}): InMemoryObjects {
  const { e2e } = resolveUpstreamManifests();
  const vars: Record<string, string> = {
    NAMESPACE: opts.namespace,
    CLUSTER_NAME: opts.clusterName,
    KUBERNETES_VERSION: opts.kubernetesVersion,
    CONTROL_PLANE_MACHINE_COUNT: String(opts.controlPlaneMachineCount ?? 1),
    WORKER_MACHINE_COUNT: String(opts.workerMachineCount ?? 1),
    DOCKER_POD_CIDRS: '192.168.0.0/16',
    DOCKER_SERVICE_CIDRS: '10.128.0.0/12',
    DOCKER_SERVICE_DOMAIN: 'cluster.local',
    ...(opts.extensionConfigName ? { EXTENSION_CONFIG_NAME: opts.extensionConfigName } : {}),
  };
  const upstream = readDocuments(e2e.clusterClassInMemory, vars, opts.namespace);
  const clusterClass = opts.extensionConfigName
    ? upstream
    : upstream.map((o) => (o.kind === 'ClusterClass' ? computeInlinePatchClass(o) : computeTemplateWithSpec(o)));
  const [cluster, ...others] = readDocuments(e2e.clusterTemplateInMemoryTopology, vars, opts.namespace);
  if (!cluster || cluster.kind !== 'Cluster' || others.length > 0)
    throw new Error(`${e2e.clusterTemplateInMemoryTopology}: expected exactly one Cluster`);
  return { clusterClass, cluster };
}
