// The differential's corpus: upstream's own in-memory ClusterClass and topology Cluster (test/e2e/in-memory-class.ts,
// the cached upstream e2e data with inline copies of the test extension's patches), generated variations of its
// variables, patches and naming, and step sequences run on both sides; and the extension scenarios, upstream's class
// unchanged with its test Runtime Extension on each side. Every scenario lives in its own namespace
// (its name) with one Cluster `c`.
import type { KubeObject } from '#shared/kube/index.ts';
import { computeInMemoryObjects } from '#test/e2e/in-memory-class.ts';

export type ScenarioState = {
  /** Templates and the ClusterClass, applied in this order before the Cluster. */
  readonly objects: readonly KubeObject[];
  readonly cluster: KubeObject;
};

/**
 * A user's edit of an object the topology manages, applied after the step's state by its own field manager
 * (`diff-editor`, server-side apply with force): the object found by its snapshot role, `patch` merged onto its
 * apiVersion, kind and name.
 */
export type UserEdit = { readonly role: string; readonly patch: Readonly<Record<string, unknown>> };

export type Step =
  | {
      readonly name: string;
      readonly kind: 'apply';
      readonly state: ScenarioState;
      readonly userEdits?: readonly UserEdit[];
      /** A lifecycle hook blocks on purpose: its blocking TopologyReconciled unchanged long enough counts as settled. */
      readonly blocked?: boolean;
    }
  | { readonly name: string; readonly kind: 'delete' };

export type Scenario = {
  readonly name: string;
  readonly description: string;
  readonly steps: readonly Step[];
  /**
   * Runs against upstream's test Runtime Extension registered on the side (the ClusterClass unchanged: its external
   * patches, DiscoverVariables and GenerateUpgradePlan); the ClusterClass's status.variables is compared too.
   */
  readonly extension?: boolean;
};

export const clusterName = 'c';
/** The test extension's ExtensionConfig: upstream's ClusterClass names its handlers `<hook>.<this>`. */
export const extensionConfigName = 'in-memory';
export const fromVersion = 'v1.36.4';
export const toVersion = 'v1.37.0';

type Mutable = { objects: KubeObject[]; cluster: KubeObject };

/**
 * The test extension's hook-response ConfigMap of the scenario's Cluster: every lifecycle hook answers Success without
 * retry (the extension's own default for a hook with no preloaded answer, spelled out for the hooks without version
 * attributes); `answers` adds or replaces `<hook>-preloadedResponse` entries (a blocking hook scenario).
 *
 * @example
 * computeHookResponses('d62-extension-variables').data['BeforeClusterCreate-preloadedResponse']
 */
export function computeHookResponses(namespace: string, answers: Readonly<Record<string, string>> = {}): KubeObject {
  const retrying = JSON.stringify({ Status: 'Success', RetryAfterSeconds: 0 });
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace, name: `${clusterName}-${extensionConfigName}-test-extension-hookresponses` },
    data: {
      'BeforeClusterCreate-preloadedResponse': retrying,
      'AfterControlPlaneInitialized-preloadedResponse': JSON.stringify({ Status: 'Success' }),
      'BeforeClusterDelete-preloadedResponse': retrying,
      ...Object.fromEntries(Object.entries(answers).map(([hook, answer]) => [`${hook}-preloadedResponse`, answer])),
    },
  };
}
type Json = Record<string, unknown>;
type Edit = (s: Mutable) => void;

const clone = (s: ScenarioState): Mutable => structuredClone({ objects: [...s.objects], cluster: s.cluster });
const classOf = (s: Mutable): Json => {
  const c = s.objects.find((o) => o.kind === 'ClusterClass');
  if (!c) throw new Error('scenario state without a ClusterClass');
  return c['spec'] as Json;
};
const objectNamed = (s: Mutable, kind: string, name: string): KubeObject => {
  const o = s.objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`scenario state without ${kind} ${name}`);
  return o;
};
const topologyOf = (s: Mutable) => (s.cluster['spec'] as { topology: Json }).topology;
type MdTopology = Json & { name: string; replicas?: number; metadata?: { labels?: Json } };
const mdsOf = (s: Mutable) => (topologyOf(s)['workers'] as { machineDeployments: MdTopology[] }).machineDeployments;
const classMd = (s: Mutable) =>
  (classOf(s)['workers'] as { machineDeployments: (Json & { class: string })[] }).machineDeployments[0]!;
const variablesOf = (s: Mutable) => topologyOf(s)['variables'] as { name: string; value: unknown }[];

function setVariable(s: Mutable, name: string, value: unknown): void {
  const vars = variablesOf(s);
  const existing = vars.find((v) => v.name === name);
  if (existing) existing.value = value;
  else vars.push({ name, value });
}

/** Every in-memory provisioning step of the class's DevMachineTemplates takes `duration` (upstream: 10 s / 2 s). */
function fastProvisioning(duration: string): Edit {
  return (s) => {
    for (const o of s.objects.filter((x) => x.kind === 'DevMachineTemplate')) {
      const inMemory = ((o['spec'] as Json)['template'] as { spec: { backend: { inMemory: Record<string, Json> } } })
        .spec.backend.inMemory;
      for (const part of Object.values(inMemory)) (part['provisioning'] as Json)['startupDuration'] = duration;
    }
  };
}

function addVariable(definition: Json): Edit {
  return (s) => {
    (classOf(s)['variables'] as Json[]).push(definition);
  };
}

function addPatch(patch: Json): Edit {
  return (s) => {
    (classOf(s)['patches'] as Json[]).push(patch);
  };
}

const selectors = {
  controlPlane: {
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmControlPlaneTemplate',
    matchResources: { controlPlane: true },
  },
  workerMachine: {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'DevMachineTemplate',
    matchResources: { machineDeploymentClass: { names: ['default-worker'] } },
  },
  workerBootstrap: {
    apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmConfigTemplate',
    matchResources: { machineDeploymentClass: { names: ['default-worker'] } },
  },
  infrastructureCluster: {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'DevClusterTemplate',
    matchResources: { infrastructureCluster: true },
  },
};

/** Class variations: what each adds to upstream's class (inline patches and variables) and the Cluster. */
type Variant = { readonly name: string; readonly description: string; readonly edits: readonly Edit[] };

const variants: readonly Variant[] = [
  { name: 'base', description: "upstream's in-memory class (1 s provisioning)", edits: [] },
  {
    name: 'maxsurge0',
    description: 'kubeadmControlPlaneMaxSurge "0" (the enabledIf patch on a non-empty string)',
    edits: [(s) => setVariable(s, 'kubeadmControlPlaneMaxSurge', '0')],
  },
  {
    name: 'nosurge',
    description: 'kubeadmControlPlaneMaxSurge "" (the enabledIf patch off)',
    edits: [(s) => setVariable(s, 'kubeadmControlPlaneMaxSurge', '')],
  },
  {
    name: 'varlabel',
    description: 'a string variable with a default set as a control-plane template label (valueFrom.variable)',
    edits: [
      addVariable({
        name: 'diffLabel',
        required: false,
        schema: { openAPIV3Schema: { type: 'string', default: 'alpha', pattern: '^[a-z]+$' } },
      }),
      addPatch({
        name: 'diff-label',
        definitions: [
          {
            selector: selectors.controlPlane,
            jsonPatches: [
              { op: 'add', path: '/spec/template/metadata/labels/diff-label', valueFrom: { variable: 'diffLabel' } },
            ],
          },
        ],
      }),
    ],
  },
  {
    name: 'enabledif',
    description: 'a boolean variable gating a patch (enabledIf) that adds an API server argument',
    edits: [
      addVariable({
        name: 'diffFlag',
        required: false,
        schema: { openAPIV3Schema: { type: 'boolean', default: false } },
      }),
      addPatch({
        name: 'diff-flag',
        enabledIf: '{{ .diffFlag }}',
        definitions: [
          {
            selector: selectors.controlPlane,
            jsonPatches: [
              {
                op: 'add',
                path: '/spec/template/spec/kubeadmConfigSpec/clusterConfiguration/apiServer/extraArgs/-',
                value: { name: 'diff-flag', value: 'on' },
              },
            ],
          },
        ],
      }),
    ],
  },
  {
    name: 'sprig',
    description: 'Go templates with sprig over builtins on the worker templates (machine jitter, kubelet node label)',
    edits: [
      addPatch({
        name: 'diff-sprig',
        definitions: [
          {
            selector: selectors.workerMachine,
            jsonPatches: [
              {
                op: 'replace',
                path: '/spec/template/spec/backend/inMemory/vm/provisioning/startupJitter',
                valueFrom: { template: '"0.{{ len .builtin.machineDeployment.topologyName }}"' },
              },
            ],
          },
          {
            selector: selectors.workerBootstrap,
            jsonPatches: [
              {
                op: 'add',
                path: '/spec/template/spec/joinConfiguration/nodeRegistration/kubeletExtraArgs/-',
                valueFrom: {
                  template:
                    'name: node-labels\nvalue: {{ printf "md=%s,cluster=%s,v=%s" (.builtin.machineDeployment.topologyName | upper) .builtin.cluster.name (trimPrefix "v" .builtin.machineDeployment.version) | quote }}',
                },
              },
            ],
          },
        ],
      }),
    ],
  },
  {
    name: 'override',
    description: 'a worker variable with a default, overridden per MachineDeployment topology',
    edits: [
      addVariable({
        name: 'workerArg',
        required: false,
        schema: { openAPIV3Schema: { type: 'string', default: 'default', maxLength: 20 } },
      }),
      addPatch({
        name: 'diff-worker-arg',
        definitions: [
          {
            selector: selectors.workerBootstrap,
            jsonPatches: [
              {
                op: 'add',
                path: '/spec/template/spec/joinConfiguration/nodeRegistration/kubeletExtraArgs/-',
                valueFrom: { template: 'name: worker-arg\nvalue: {{ .workerArg | quote }}' },
              },
            ],
          },
        ],
      }),
      (s) => {
        mdsOf(s)[0]!['variables'] = { overrides: [{ name: 'workerArg', value: 'md0' }] };
      },
    ],
  },
  {
    name: 'object',
    description: 'an object variable with nested defaults read by a template on the control plane',
    edits: [
      addVariable({
        name: 'cpExtra',
        required: false,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            default: {},
            properties: {
              level: { type: 'integer', default: 3, minimum: 0 },
              name: { type: 'string', default: 'cm' },
            },
          },
        },
      }),
      addPatch({
        name: 'diff-object',
        definitions: [
          {
            selector: selectors.controlPlane,
            jsonPatches: [
              {
                op: 'add',
                path: '/spec/template/spec/kubeadmConfigSpec/clusterConfiguration/controllerManager/extraArgs/-',
                valueFrom: { template: 'name: {{ .cpExtra.name }}-level\nvalue: "{{ .cpExtra.level }}"' },
              },
            ],
          },
        ],
      }),
    ],
  },
  {
    name: 'naming',
    description: 'naming templates for the infrastructure cluster, control plane and MachineDeployments',
    edits: [
      (s) => {
        const spec = classOf(s);
        (spec['infrastructure'] as Json)['naming'] = { template: '{{ .cluster.name }}-infra-{{ .random }}' };
        (spec['controlPlane'] as Json)['naming'] = { template: '{{ .cluster.name }}-cp-{{ .random }}' };
        classMd(s)['naming'] = {
          template: '{{ .cluster.name }}-w-{{ .machineDeployment.topologyName }}-{{ .random }}',
        };
      },
    ],
  },
  {
    name: 'infrapatch',
    description: 'a patch on the infrastructure cluster template from a builtin',
    edits: [
      addPatch({
        name: 'diff-infra',
        definitions: [
          {
            selector: selectors.infrastructureCluster,
            jsonPatches: [
              {
                op: 'add',
                path: '/spec/template/metadata/annotations/diff-cluster',
                valueFrom: { template: '{{ .builtin.cluster.name }}-{{ .builtin.cluster.topology.class }}' },
              },
            ],
          },
        ],
      }),
    ],
  },
];

/** Step sequences: each a list of named edits after creation; `delete` ends every sequence. */
type Sequence = { readonly name: string; readonly steps: readonly (readonly [string, Edit])[] };

const rotatedSuffix = '-v2';
function rotateTemplate(kind: string, ref: (s: Mutable) => Json, change: (spec: Json) => void): Edit {
  return (s) => {
    const r = ref(s);
    const old = objectNamed(s, kind, r['name'] as string);
    const copy = structuredClone(old);
    copy.metadata = { ...copy.metadata, name: `${old.metadata.name ?? ''}${rotatedSuffix}` };
    change(copy['spec'] as Json);
    s.objects.unshift(copy);
    r['name'] = copy.metadata.name;
  };
}
const mdInfraRef = (s: Mutable) => (classMd(s)['infrastructure'] as { templateRef: Json }).templateRef;
const mdBootstrapRef = (s: Mutable) => (classMd(s)['bootstrap'] as { templateRef: Json }).templateRef;
const cpInfraRef = (s: Mutable) =>
  ((classOf(s)['controlPlane'] as Json)['machineInfrastructure'] as { templateRef: Json }).templateRef;
const setJitter = (jitter: string) => (spec: Json) => {
  const vm = (spec['template'] as { spec: { backend: { inMemory: { vm: { provisioning: Json } } } } }).spec.backend
    .inMemory.vm;
  vm.provisioning['startupJitter'] = jitter;
};

const variableChange: Record<string, Edit> = {
  base: (s) => setVariable(s, 'imageRepository', 'example.com/kindest'),
  maxsurge0: (s) => setVariable(s, 'kubeadmControlPlaneMaxSurge', '1'),
  nosurge: (s) => setVariable(s, 'kubeadmControlPlaneMaxSurge', '2'),
  varlabel: (s) => setVariable(s, 'diffLabel', 'beta'),
  enabledif: (s) => setVariable(s, 'diffFlag', true),
  sprig: (s) => setVariable(s, 'imageRepository', 'sprig'),
  override: (s) => {
    mdsOf(s)[0]!['variables'] = { overrides: [{ name: 'workerArg', value: 'md0-changed' }] };
  },
  object: (s) => setVariable(s, 'cpExtra', { level: 5 }),
  naming: (s) => setVariable(s, 'imageRepository', 'naming'),
  infrapatch: (s) => setVariable(s, 'imageRepository', 'infra'),
};

function sequences(variant: string): Sequence[] {
  return [
    {
      name: 'variables',
      steps: [
        ['change a variable', variableChange[variant] ?? variableChange['base']!],
        [
          'change Cluster metadata',
          (s) => {
            ((topologyOf(s)['controlPlane'] as Json)['metadata'] as { labels: Json }).labels['diff-step'] = 'two';
            (mdsOf(s)[0]!.metadata as { labels: Json }).labels['diff-step'] = 'two';
          },
        ],
      ],
    },
    {
      name: 'scale',
      steps: [
        [
          'scale md-0 to 2',
          (s) => {
            mdsOf(s)[0]!.replicas = 2;
          },
        ],
        [
          'scale md-0 to 0',
          (s) => {
            mdsOf(s)[0]!.replicas = 0;
          },
        ],
      ],
    },
    {
      name: 'upgrade',
      steps: [
        [
          `upgrade to ${toVersion}`,
          (s) => {
            topologyOf(s)['version'] = toVersion;
          },
        ],
      ],
    },
    {
      name: 'workers',
      steps: [
        [
          'add md-1',
          (s) => {
            mdsOf(s).push({ ...structuredClone(mdsOf(s)[0]!), name: 'md-1', replicas: 1 });
          },
        ],
        [
          'remove md-1',
          (s) => {
            topologyOf(s)['workers'] = { machineDeployments: mdsOf(s).filter((m) => m.name !== 'md-1') };
          },
        ],
      ],
    },
    {
      name: 'rotate',
      steps: [
        [
          'rotate the worker machine template (new ref)',
          rotateTemplate('DevMachineTemplate', mdInfraRef, setJitter('0.3')),
        ],
        [
          'rotate the control-plane machine template (new ref)',
          rotateTemplate('DevMachineTemplate', cpInfraRef, setJitter('0.4')),
        ],
      ],
    },
    {
      name: 'class',
      steps: [
        [
          'change the class metadata',
          (s) => {
            ((classOf(s)['controlPlane'] as Json)['metadata'] as { labels: Json }).labels['diff-class'] = 'two';
            (classMd(s)['metadata'] as { annotations: Json }).annotations['diff-class'] = 'two';
          },
        ],
        [
          'change the worker bootstrap template (new ref)',
          rotateTemplate('KubeadmConfigTemplate', mdBootstrapRef, (spec) => {
            const join = (spec['template'] as { spec: { joinConfiguration: { nodeRegistration: Json } } }).spec
              .joinConfiguration.nodeRegistration;
            join['taints'] = [];
          }),
        ],
      ],
    },
  ];
}

function computeBase(namespace: string, edits: readonly Edit[], provisioning: string | undefined): ScenarioState {
  const { clusterClass, cluster } = computeInMemoryObjects({ namespace, clusterName, kubernetesVersion: fromVersion });
  // NOTE: a deep copy: computeInMemoryObjects shares constant parts (the inline variables) between calls.
  const s: Mutable = structuredClone({ objects: [...clusterClass], cluster });
  if (provisioning) fastProvisioning(provisioning)(s);
  for (const edit of edits) edit(s);
  return s;
}

function computeScenario(name: string, description: string, base: ScenarioState, seq: Sequence): Scenario {
  const steps: Step[] = [{ name: 'create', kind: 'apply', state: base }];
  let state = base;
  for (const [stepName, edit] of seq.steps) {
    const next = clone(state);
    edit(next);
    state = next;
    steps.push({ name: stepName, kind: 'apply', state });
  }
  steps.push({ name: 'delete', kind: 'delete' });
  return { name, description, steps };
}

/**
 * The CI subset (`npm run test:diff` without DIFF_ALL or DIFF_SCENARIOS): one scenario per step sequence (variables and
 * metadata, scale, upgrade, MachineDeployments added and removed, template rotation, class metadata and a new bootstrap
 * template), over three class variants.
 */
export const ciScenarioNames: readonly string[] = [
  'd01-base-variables',
  'd04-base-workers',
  'd15-nosurge-upgrade',
  'd18-nosurge-class',
  'd26-enabledif-scale',
  'd29-enabledif-rotate',
];

/**
 * The corpus: every class variant × every step sequence, plus upstream's class verbatim (10 s provisioning), plus a
 * chained upgrade through spec.kubernetesVersions, plus upstream's class unchanged with its test extension (issue 18).
 *
 * @example
 * computeScenarios().length // 77
 */
export function computeScenarios(): Scenario[] {
  const out: Scenario[] = [];
  const verbatim = 'd00-upstream-verbatim';
  out.push(
    computeScenario(
      verbatim,
      "upstream's in-memory class and Cluster as published (10 s provisioning): create, scale, delete",
      computeBase(verbatim, [], undefined),
      sequences('base')[1]!,
    ),
  );
  let i = 1;
  for (const variant of variants)
    for (const seq of sequences(variant.name)) {
      const name = `d${String(i++).padStart(2, '0')}-${variant.name}-${seq.name}`;
      out.push(
        computeScenario(
          name,
          `${variant.description}; steps: ${seq.steps.map(([n]) => n).join(', ')}`,
          computeBase(name, variant.edits, '1s'),
          seq,
        ),
      );
    }
  out.push(computeChainedUpgradeScenario(`d${String(i++).padStart(2, '0')}-chained-upgrade`));
  for (const [suffix, build] of extensionScenarios) out.push(build(`d${String(i++).padStart(2, '0')}-${suffix}`));
  for (const family of familyScenarios)
    out.push(computeFamilyScenario(`d${String(i++).padStart(2, '0')}-family-${family.name}`, family));
  return out;
}

/** The chained upgrade's versions: two minors below toVersion, through fromVersion (upstream's class lists them). */
const chainedVersions = ['v1.35.0', fromVersion, toVersion] as const;

/**
 * A ClusterClass with spec.kubernetesVersions and a two-minor upgrade: the control plane goes through the intermediate
 * version, the workers straight to the last (issue 18).
 */
function computeChainedUpgradeScenario(name: string): Scenario {
  const { clusterClass, cluster } = computeInMemoryObjects({
    namespace: name,
    clusterName,
    kubernetesVersion: chainedVersions[0],
  });
  const s: Mutable = structuredClone({ objects: [...clusterClass], cluster });
  fastProvisioning('1s')(s);
  classOf(s)['kubernetesVersions'] = [...chainedVersions];
  return computeScenario(
    name,
    `upstream's in-memory class listing kubernetesVersions ${chainedVersions.join(', ')} (1 s provisioning); steps: upgrade ${chainedVersions[0]} to ${toVersion} through ${fromVersion}`,
    s,
    {
      name: 'chained-upgrade',
      steps: [
        [
          `upgrade to ${toVersion} through ${fromVersion}`,
          (next) => {
            topologyOf(next)['version'] = toVersion;
          },
        ],
      ],
    },
  );
}

/** Upstream's ClusterClass and Cluster unchanged (external patches, upgrade plan), 1 s provisioning, at `version`. */
function computeExtensionBase(namespace: string, version: string): ScenarioState {
  const { clusterClass, cluster } = computeInMemoryObjects({
    namespace,
    clusterName,
    kubernetesVersion: version,
    extensionConfigName,
  });
  const s: Mutable = structuredClone({ objects: [...clusterClass], cluster });
  fastProvisioning('1s')(s);
  return s;
}

function computeExtensionScenario(name: string, what: string, version: string, seq: Sequence): Scenario {
  const scenario = computeScenario(
    name,
    `upstream's in-memory class unchanged with its test extension (external patches and variables, upgrade plan), 1 s provisioning; ${what}; steps: ${seq.steps.map(([n]) => n).join(', ')}`,
    computeExtensionBase(name, version),
    seq,
  );
  return { ...scenario, extension: true };
}

/**
 * The scenarios with upstream's test extension, in corpus order: the variables its GeneratePatches reads, the upgrade
 * through its GenerateUpgradePlan (one minor, then two), and MachineDeployments with per-topology overrides.
 */
const extensionScenarios: readonly (readonly [string, (name: string) => Scenario])[] = [
  [
    'extension-variables',
    (name) =>
      computeExtensionScenario(name, 'variables its GeneratePatches reads', fromVersion, {
        name: 'extension-variables',
        steps: [
          // NOTE: with one control-plane replica the KubeadmControlPlane webhook refuses a maxSurge other than 0 or 1:
          // the last step's refusal is compared as TopologyReconciled's message (worded as upstream's since d13).
          ['kubeadmControlPlaneMaxSurge "1" to ""', (s) => setVariable(s, 'kubeadmControlPlaneMaxSurge', '')],
          [
            'set preKubeadmCommands and files',
            (s) => {
              setVariable(s, 'preKubeadmCommands', ['echo diff']);
              setVariable(s, 'files', [{ path: '/etc/diff.conf', content: 'diff' }]);
            },
          ],
          ['kubeadmControlPlaneMaxSurge "1" again', (s) => setVariable(s, 'kubeadmControlPlaneMaxSurge', '1')],
          [
            'kubeadmControlPlaneMaxSurge "2" (refused by the KubeadmControlPlane webhook)',
            (s) => setVariable(s, 'kubeadmControlPlaneMaxSurge', '2'),
          ],
        ],
      }),
  ],
  [
    'extension-upgrade',
    (name) =>
      computeExtensionScenario(name, 'an upgrade planned by its GenerateUpgradePlan', fromVersion, {
        name: 'extension-upgrade',
        steps: [
          [
            `upgrade to ${toVersion}`,
            (s) => {
              topologyOf(s)['version'] = toVersion;
            },
          ],
        ],
      }),
  ],
  [
    'extension-chained-upgrade',
    (name) =>
      computeExtensionScenario(name, 'a two-minor upgrade planned by its GenerateUpgradePlan', chainedVersions[0], {
        name: 'extension-chained-upgrade',
        steps: [
          [
            `upgrade ${chainedVersions[0]} to ${toVersion}`,
            (s) => {
              topologyOf(s)['version'] = toVersion;
            },
          ],
        ],
      }),
  ],
  [
    'extension-workers',
    (name) =>
      computeExtensionScenario(name, 'MachineDeployments with overrides of its variables', fromVersion, {
        name: 'extension-workers',
        steps: [
          [
            'add md-1 overriding kubeadmConfigTemplateAnnotations',
            (s) => {
              mdsOf(s).push({
                ...structuredClone(mdsOf(s)[0]!),
                name: 'md-1',
                replicas: 1,
                variables: { overrides: [{ name: 'kubeadmConfigTemplateAnnotations', value: { 'diff-md': 'md-1' } }] },
              });
            },
          ],
          [
            'scale md-1 to 2, kubeadmConfigTemplateAnnotations set for the Cluster',
            (s) => {
              mdsOf(s)[1]!.replicas = 2;
              setVariable(s, 'kubeadmConfigTemplateAnnotations', { 'diff-cluster': 'all' });
            },
          ],
        ],
      }),
  ],
];

/**
 * The families issue 35 found unexercised (each on upstream's in-memory class, 1 s provisioning): a base edit, then
 * steps; `userEdits` of a step are applied after its state. `delete` ends each.
 */
type Family = {
  readonly name: string;
  readonly description: string;
  /** With upstream's test extension (the class unchanged, computeExtensionBase). */
  readonly extension?: boolean;
  /** Steps (by name) where a lifecycle hook blocks on purpose. */
  readonly blocked?: readonly string[];
  readonly base?: (namespace: string) => Mutable;
  readonly edits?: readonly Edit[];
  readonly steps: readonly (readonly [string, Edit, (readonly UserEdit[])?])[];
};

const deferUpgradeAnnotation = 'topology.cluster.x-k8s.io/defer-upgrade';
const holdUpgradeSequenceAnnotation = 'topology.cluster.x-k8s.io/hold-upgrade-sequence';
const upgradeConcurrencyAnnotation = 'topology.cluster.x-k8s.io/upgrade-concurrency';
const pausedAnnotation = 'cluster.x-k8s.io/paused';
/** Labels upstream's topology Cluster sets in `spec.topology.{controlPlane,workers.machineDeployments[md-0]}.metadata`. */
const cpTopologyLabel = 'Cluster.topology.controlPlane.label';
const mdTopologyLabel = 'Cluster.topology.machineDeployment.label';

const cpTopology = (s: Mutable) =>
  topologyOf(s)['controlPlane'] as Json & { metadata: { labels: Json; annotations: Json } };
const mdAnnotations = (md: MdTopology): Json => {
  const metadata = (md['metadata'] ??= {}) as { annotations?: Json };
  return (metadata.annotations ??= {});
};
const addSecondMd: Edit = (s) => {
  mdsOf(s).push({ ...structuredClone(mdsOf(s)[0]!), name: 'md-1', replicas: 1 });
};
const classMetadata = (s: Mutable) =>
  (classOf(s)['controlPlane'] as Json)['metadata'] as { labels: Json; annotations: Json };
const setClassRef = (name: string, namespace: string) => (s: Mutable) => {
  topologyOf(s)['classRef'] = { name, namespace };
};
const editTemplateInPlace =
  (kind: string, ref: (s: Mutable) => Json, change: (spec: Json) => void): Edit =>
  (s) => {
    change(objectNamed(s, kind, ref(s)['name'] as string)['spec'] as Json);
  };

/** The class's objects in namespace `classes` (ClusterClass `in-memory`, renamed), the Cluster in `namespace`. */
function computeOtherNamespaceBase(namespace: string): Mutable {
  const classes = `${namespace}-classes`;
  const { clusterClass, cluster } = computeInMemoryObjects({
    namespace: classes,
    clusterName,
    kubernetesVersion: fromVersion,
  });
  const s: Mutable = structuredClone({ objects: [...clusterClass], cluster });
  fastProvisioning('1s')(s);
  s.cluster.metadata = { ...s.cluster.metadata, namespace };
  // NOTE: a second class in the same namespace over the same templates, differing in its control-plane metadata: the
  // rebase target.
  const rebased = structuredClone(s.objects.find((o) => o.kind === 'ClusterClass')!);
  rebased.metadata = { ...rebased.metadata, name: 'in-memory-b' };
  (((rebased['spec'] as Json)['controlPlane'] as Json)['metadata'] as { labels: Json }).labels['diff-class'] = 'b';
  s.objects.push(rebased);
  s.objects.unshift({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: classes } });
  return s;
}

/** The same class in the Cluster's own namespace too (the last rebase's target). */
const addOwnNamespaceClass: Edit = (s) => {
  const namespace = s.cluster.metadata.namespace ?? '';
  const { clusterClass } = computeInMemoryObjects({ namespace, clusterName, kubernetesVersion: fromVersion });
  const own: Mutable = structuredClone({ objects: [...clusterClass], cluster: s.cluster });
  fastProvisioning('1s')(own);
  s.objects.push(...own.objects);
};

/** BeforeClusterUpgrade's answers (the test extension reads the key with and without the versions as attributes). */
const beforeClusterUpgrade = (answer: Json) => {
  const text = JSON.stringify(answer);
  return { BeforeClusterUpgrade: text, [`BeforeClusterUpgrade-${fromVersion}-${toVersion}`]: text };
};
const setHookResponses =
  (answers: Readonly<Record<string, string>>): Edit =>
  (s) => {
    const namespace = s.cluster.metadata.namespace ?? '';
    s.objects = [...s.objects.filter((o) => o.kind !== 'ConfigMap'), computeHookResponses(namespace, answers)];
  };
const blockedUpgradeStep = `upgrade to ${toVersion} (BeforeClusterUpgrade blocks)`;

const familyScenarios: readonly Family[] = [
  {
    name: 'cp-scale',
    description: 'control-plane scaling',
    steps: [
      ['scale the control plane to 3', (s) => void (cpTopology(s)['replicas'] = 3)],
      ['scale the control plane to 1', (s) => void (cpTopology(s)['replicas'] = 1)],
    ],
  },
  {
    name: 'remove-labels',
    description: 'labels and annotations removed from the Cluster topology and the class',
    // NOTE: the class's control-plane labels and worker annotations carry one entry each; removing it would leave an
    // empty map that is sent as null and refused by upstream's ClusterClass CRD ("must be of type object"). A second
    // entry stays, so the step removes one label rather than the map (the Cluster topology's maps already hold two).
    edits: [
      (s) => {
        classMetadata(s).labels['diff-kept'] = 'kept';
        ((classMd(s)['metadata'] as { annotations: Json }).annotations ??= {})['diff-kept'] = 'kept';
      },
    ],
    steps: [
      [
        "remove a label and an annotation of the Cluster's control plane and md-0",
        (s) => {
          delete cpTopology(s).metadata.labels['Cluster.topology.controlPlane.label'];
          delete cpTopology(s).metadata.annotations['Cluster.topology.controlPlane.annotation'];
          const md = mdsOf(s)[0]!.metadata as { labels: Json; annotations: Json };
          delete md.labels['Cluster.topology.machineDeployment.label'];
          delete md.annotations['Cluster.topology.machineDeployment.annotation'];
        },
      ],
      [
        "remove the class's control-plane label and worker annotation",
        (s) => {
          delete classMetadata(s).labels['ClusterClass.controlPlane.label'];
          delete (classMd(s)['metadata'] as { annotations: Json }).annotations[
            'ClusterClass.machineDeployment.annotation'
          ];
        },
      ],
    ],
  },
  {
    name: 'mhc',
    description: 'MachineHealthChecks changed in the class, then removed by the Cluster topology',
    steps: [
      [
        "change the class's worker and control-plane health checks",
        (s) => {
          const md = classMd(s)['healthCheck'] as { checks: { unhealthyNodeConditions: Json[] } };
          md.checks.unhealthyNodeConditions[0]!['timeoutSeconds'] = 600;
          const cp = (classOf(s)['controlPlane'] as Json)['healthCheck'] as { checks: Json };
          cp.checks['nodeStartupTimeoutSeconds'] = 900;
        },
      ],
      [
        "disable md-0's and the control plane's health checks in the Cluster topology",
        (s) => {
          mdsOf(s)[0]!['healthCheck'] = { enabled: false };
          cpTopology(s)['healthCheck'] = { enabled: false };
        },
      ],
    ],
  },
  {
    name: 'inplace-template',
    description: "in-place edits of the class's templates (same name)",
    steps: [
      [
        'edit the worker bootstrap template in place',
        editTemplateInPlace('KubeadmConfigTemplate', mdBootstrapRef, (spec) => {
          (spec['template'] as { spec: Json }).spec['preKubeadmCommands'] = ['echo in-place'];
        }),
      ],
      // NOTE: not the DevMachineTemplate or KubeadmControlPlaneTemplate: their providers' webhooks refuse any change of
      // spec.template.spec (the run of 2026-11-27 refused the worker DevMachineTemplate's edit on both sides). Upstream's
      // topology controller does not watch templates: a Cluster change is the event that makes it read the edit.
      [
        'annotate the Cluster (the next reconcile after the in-place edit)',
        (s) => {
          s.cluster.metadata = {
            ...s.cluster.metadata,
            annotations: { ...s.cluster.metadata.annotations, 'diff-step': 'after-in-place-edit' },
          };
        },
      ],
    ],
  },
  {
    name: 'paused',
    description: 'a paused Cluster changed, then unpaused',
    steps: [
      [
        'pause the Cluster (spec.paused) and change a variable',
        (s) => {
          (s.cluster['spec'] as Json)['paused'] = true;
          setVariable(s, 'imageRepository', 'paused');
        },
      ],
      ['unpause the Cluster', (s) => void delete (s.cluster['spec'] as Json)['paused']],
    ],
  },
  {
    name: 'class-paused',
    description: 'a paused ClusterClass changed, then unpaused',
    steps: [
      [
        'pause the ClusterClass (annotation) and change its control-plane metadata',
        (s) => {
          const cc = objectNamed(s, 'ClusterClass', 'in-memory');
          cc.metadata = { ...cc.metadata, annotations: { ...cc.metadata.annotations, [pausedAnnotation]: '' } };
          classMetadata(s).labels['diff-class'] = 'paused';
        },
      ],
      [
        'unpause the ClusterClass',
        (s) => {
          const cc = objectNamed(s, 'ClusterClass', 'in-memory');
          const { [pausedAnnotation]: _paused, ...annotations } = cc.metadata.annotations ?? {};
          cc.metadata = { ...cc.metadata, annotations };
        },
      ],
    ],
  },
  {
    name: 'class-namespace',
    description:
      'a ClusterClass in another namespace, a rebase to another class there, then to one in the Cluster namespace',
    base: computeOtherNamespaceBase,
    steps: [
      [
        'rebase to in-memory-b in the classes namespace',
        (s) => setClassRef('in-memory-b', `${s.cluster.metadata.namespace ?? ''}-classes`)(s),
      ],
      [
        "rebase to in-memory in the Cluster's namespace",
        (s) => {
          addOwnNamespaceClass(s);
          setClassRef('in-memory', s.cluster.metadata.namespace ?? '')(s);
        },
      ],
    ],
  },
  {
    name: 'defer-upgrade',
    description:
      'two MachineDeployments, md-1 with the defer-upgrade annotation; an upgrade, then the annotation removed',
    edits: [
      addSecondMd,
      (s) => {
        mdAnnotations(mdsOf(s)[1]!)[deferUpgradeAnnotation] = '';
      },
    ],
    steps: [
      [`upgrade to ${toVersion} (md-1 deferred)`, (s) => void (topologyOf(s)['version'] = toVersion)],
      ['remove the defer-upgrade annotation', (s) => void delete mdAnnotations(mdsOf(s)[1]!)[deferUpgradeAnnotation]],
    ],
  },
  {
    name: 'hold-concurrency',
    description:
      'three MachineDeployments, upgrade-concurrency 2 on the Cluster, md-1 holding the upgrade sequence; an upgrade, then the hold removed',
    edits: [
      addSecondMd,
      (s) => {
        mdsOf(s).push({ ...structuredClone(mdsOf(s)[0]!), name: 'md-2', replicas: 1 });
        mdAnnotations(mdsOf(s)[1]!)[holdUpgradeSequenceAnnotation] = '';
        s.cluster.metadata = {
          ...s.cluster.metadata,
          annotations: { ...s.cluster.metadata.annotations, [upgradeConcurrencyAnnotation]: '2' },
        };
      },
    ],
    steps: [
      [`upgrade to ${toVersion} (md-1 holds the sequence)`, (s) => void (topologyOf(s)['version'] = toVersion)],
      [
        'remove the hold-upgrade-sequence annotation',
        (s) => void delete mdAnnotations(mdsOf(s)[1]!)[holdUpgradeSequenceAnnotation],
      ],
    ],
  },
  {
    name: 'user-edits',
    description:
      'a user edits objects the topology manages (a field it owns, labels its metadata manages, fields it does not), then the topology changes',
    steps: [
      [
        "a user's label and replicas on md-0, an annotation on the control plane, a label on the InfrastructureCluster",
        () => undefined,
        // NOTE: besides the user's own fields, the user sets a label the Cluster topology's metadata manages to another
        // value: on md-0's metadata and on the control plane's machine template (a KubeadmControlPlane carries the
        // topology's control-plane metadata there, not on its own metadata); the topology puts both back. Not the
        // topology's `owned` label: both sides select their objects by it, and another value made neither side settle
        // (2026-11-28).
        [
          {
            role: 'MachineDeployment/md-0',
            patch: {
              metadata: { labels: { 'diff-user': 'kept', [mdTopologyLabel]: 'user-edited' } },
              spec: { replicas: 3 },
            },
          },
          {
            role: 'ControlPlane',
            patch: {
              metadata: { annotations: { 'diff-user': 'kept' } },
              spec: { machineTemplate: { metadata: { labels: { [cpTopologyLabel]: 'user-edited' } } } },
            },
          },
          { role: 'InfrastructureCluster', patch: { metadata: { labels: { 'diff-user': 'kept' } } } },
        ],
      ],
      [
        "change Cluster metadata (the user's fields stay)",
        (s) => {
          cpTopology(s).metadata.labels['diff-step'] = 'two';
          (mdsOf(s)[0]!.metadata as { labels: Json }).labels['diff-step'] = 'two';
        },
      ],
    ],
  },
  {
    name: 'blocking-hook',
    description:
      "upstream's class with its test extension; BeforeClusterUpgrade answers retry after 5 s (blocking), then Success",
    extension: true,
    blocked: [blockedUpgradeStep],
    edits: [setHookResponses(beforeClusterUpgrade({ Status: 'Success', RetryAfterSeconds: 5 }))],
    steps: [
      [
        blockedUpgradeStep,
        (s) => {
          topologyOf(s)['version'] = toVersion;
        },
      ],
      ['BeforeClusterUpgrade answers Success', setHookResponses(beforeClusterUpgrade({ Status: 'Success' }))],
    ],
  },
];

function computeFamilyScenario(name: string, family: Family): Scenario {
  const base =
    family.base?.(name) ??
    ((family.extension ? computeExtensionBase(name, fromVersion) : computeBase(name, [], '1s')) as Mutable);
  for (const edit of family.edits ?? []) edit(base);
  const steps: Step[] = [{ name: 'create', kind: 'apply', state: base }];
  let state: ScenarioState = base;
  for (const [stepName, edit, userEdits] of family.steps) {
    const next = clone(state);
    edit(next);
    state = next;
    steps.push({
      name: stepName,
      kind: 'apply',
      state,
      ...(userEdits ? { userEdits } : {}),
      ...(family.blocked?.includes(stepName) ? { blocked: true } : {}),
    });
  }
  steps.push({ name: 'delete', kind: 'delete' });
  return {
    name,
    description: `${family.description}; steps: ${family.steps.map(([n]) => n).join(', ')}`,
    steps,
    ...(family.extension ? { extension: true } : {}),
  };
}
