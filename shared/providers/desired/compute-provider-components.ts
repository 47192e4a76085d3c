// The whole processing of one provider version's components, as clusterctl's `NewComponents` and the operator's
// Fetch phase do it: substitution, parsing, image overrides, target namespace, inventory labels, ordering, then
// the ProviderSpec customisations (deployment, manager flags, patches).
import { computeManifestLabel, operatorApiVersion, providerKinds } from '#shared/api/operator/v1alpha2/provider.ts';
import type { Provider, ProviderType } from '#shared/api/operator/v1alpha2/provider.ts';
import { describeObject } from '#shared/errors/index.ts';
import {
  computeImageOverrides,
  imagesConfigKey,
  listImages,
  parseImageOverrides,
} from '#shared/providers/desired/compute-image-overrides.ts';
import type { ImageOverrides } from '#shared/providers/desired/compute-image-overrides.ts';
import { computeGenericPatches, computeManifestPatches } from '#shared/providers/desired/compute-manifest-patches.ts';
import {
  computeDefaultTargetNamespace,
  computeTargetNamespace,
} from '#shared/providers/desired/compute-target-namespace.ts';
import { computeVariableSubstitution, listVariables } from '#shared/providers/desired/compute-variable-substitution.ts';
import { customizeDeployment } from '#shared/providers/desired/customize-deployment.ts';
import { parseComponentsYaml } from '#shared/providers/desired/parse-components-yaml.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import { ProviderComponentsError, ProviderReason } from '#shared/providers/desired/provider-components-error.ts';

/** clusterctl's inventory labels (`clusterctl.cluster.x-k8s.io`, `cluster.x-k8s.io/provider`). */
export const clusterctlLabel = 'clusterctl.cluster.x-k8s.io';
export const providerNameLabel = 'cluster.x-k8s.io/provider';

export type ProviderComponentsInput = {
  /** The provider object (parsed); its kind, name, namespace, uid and spec drive the processing. */
  readonly provider: Provider;
  /** The version being installed (spec.version, or the latest one found). */
  readonly version: string;
  /** components.yaml of that version, raw. */
  readonly componentsYaml: string;
  /** The `manifests` key of the additionalManifests ConfigMap, if any; appended to the components before processing. */
  readonly additionalManifestsYaml?: string;
  /** Data of the configSecret (decoded); `images` holds clusterctl image overrides. */
  readonly configVariables: Readonly<Record<string, string>>;
  /** Operator-level image overrides (the operator's clusterctl config), applied last. */
  readonly imageOverrides?: ImageOverrides;
};

export type ProviderComponents = {
  readonly providerType: ProviderType;
  /** `infrastructure-aws`, the value of the `cluster.x-k8s.io/provider` label. */
  readonly manifestLabel: string;
  readonly version: string;
  readonly targetNamespace: string;
  /** Variables the YAML uses, sorted. */
  readonly variables: readonly string[];
  /** Container images after overrides, in object order. */
  readonly images: readonly string[];
  /** Labels every object carries, to find them again. */
  readonly inventoryLabels: Readonly<Record<string, string>>;
  /** Objects to apply, in install order. */
  readonly objects: readonly ComponentObject[];
};

/** Install order rank: Namespaces, then cert-manager objects (before the webhooks and CRDs they inject), then CRDs. */
function installRank(o: ComponentObject): number {
  if (o.kind === 'Namespace') return 0;
  if (o.apiVersion.startsWith('cert-manager.io/')) return 1;
  if (o.kind === 'CustomResourceDefinition') return 2;
  return 3;
}

/** Stable sort of objects for install, as clusterctl orders components (plus CRDs ahead of the rest). */
export function computeInstallOrder(objs: readonly ComponentObject[]): ComponentObject[] {
  return objs
    .map((o, i) => ({ o, i, r: installRank(o) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map(({ o }) => o);
}

function withLabels(o: ComponentObject, labels: Readonly<Record<string, string>>): ComponentObject {
  return { ...o, metadata: { ...o.metadata, labels: { ...o.metadata.labels, ...labels } } };
}

function withOwner(o: ComponentObject, provider: Provider): ComponentObject {
  const uid = provider.metadata.uid;
  const name = provider.metadata.name;
  if (!uid || !name || !o.metadata.namespace) return o;
  const ref = { apiVersion: operatorApiVersion, kind: provider.kind, name, uid };
  const group = (apiVersion: unknown) =>
    typeof apiVersion === 'string' ? apiVersion.split('/').slice(0, -1).join('/') : '';
  const existing = Array.isArray(o.metadata['ownerReferences'])
    ? (o.metadata['ownerReferences'] as Record<string, unknown>[])
    : [];
  const i = existing.findIndex(
    (r) => group(r['apiVersion']) === group(ref.apiVersion) && r['kind'] === ref.kind && r['name'] === ref.name,
  );
  const refs = i >= 0 ? existing.map((r, k) => (k === i ? ref : r)) : [...existing, ref];
  return { ...o, metadata: { ...o.metadata, ownerReferences: refs } };
}

const isManagerDeploymentName = (name: string) => name.startsWith('ca') && name.endsWith('-controller-manager');

/** The operator's `customizeObjectsFn`: drops Namespaces, owns namespaced objects, customises Deployments. */
function customizeObjects(objs: readonly ComponentObject[], provider: Provider): ComponentObject[] {
  const spec = provider.spec ?? {};
  const multiple = objs.filter((o) => o.kind === 'Deployment').length > 1;
  const out: ComponentObject[] = [];
  for (const input of objs) {
    // NOTE: the target namespace is the provider's own namespace, which exists; the operator never applies it.
    if (input.kind === 'Namespace') continue;
    let o = withOwner(input, provider);
    if (o.kind === 'Deployment') {
      let deployment = spec.deployment;
      let manager = spec.manager;
      const name = o.metadata.name ?? '';
      if (multiple && !isManagerDeploymentName(name)) {
        const extra = spec.additionalDeployments?.[name];
        if (!extra) {
          out.push(o);
          continue;
        }
        deployment = extra.deployment;
        manager = extra.manager;
      }
      o = customizeDeployment(deployment, manager, o);
    }
    out.push(o);
  }
  return out;
}

/**
 * Computes the objects to apply for one provider version. Steps, in upstream's order: append additional
 * manifests; substitute `${VAR}`s from the config Secret (all missing variables reported at once); parse; apply
 * the config's `images` overrides; move everything into the target namespace (the provider's); add the inventory
 * labels; order for install; drop the Namespace object; set owner references; apply `deployment`/`manager`
 * (and `additionalDeployments`); apply `manifestPatches` or `patches`; apply operator-level image overrides.
 * Inputs are not modified; the output is deterministic.
 *
 * @example
 * const components = computeProviderComponents({ provider, version: 'v1.9.0', componentsYaml, configVariables: {} });
 * components.objects; // CRDs, RBAC, Deployment… labelled `cluster.x-k8s.io/provider: cluster-api`
 */
export function computeProviderComponents(input: ProviderComponentsInput): ProviderComponents {
  const { provider, version } = input;
  const name = provider.metadata.name ?? '';
  const namespace = provider.metadata.namespace ?? '';
  const object = { kind: provider.kind, name, ...(namespace ? { namespace } : {}) };
  const manifestLabel = computeManifestLabel(provider.kind, name);
  const source = `components.yaml of ${describeObject(provider.kind, namespace, name)} ${version}`;
  const spec = provider.spec ?? {};
  if (
    spec.patches !== undefined &&
    spec.patches.length > 0 &&
    spec.manifestPatches !== undefined &&
    spec.manifestPatches.length > 0
  ) {
    throw new ProviderComponentsError(
      `failed to patch components of ${describeObject(provider.kind, namespace, name)}: cannot use both 'patches' and 'manifestPatches'; please choose one`,
      { ...object, reason: ProviderReason.ComponentsPatchError },
    );
  }

  const additional = input.additionalManifestsYaml ?? '';
  const text = additional ? `${input.componentsYaml}\n---\n${additional}` : input.componentsYaml;
  const variables = listVariables(text, { source, object });
  const rendered = computeVariableSubstitution(text, input.configVariables, { source, object });
  let objs = parseComponentsYaml(rendered, source);

  const imagesConfig = Object.hasOwn(input.configVariables, imagesConfigKey)
    ? input.configVariables[imagesConfigKey]
    : undefined;
  if (imagesConfig !== undefined)
    objs = computeImageOverrides(
      objs,
      manifestLabel,
      parseImageOverrides(imagesConfig, `${imagesConfigKey} config variable`),
    );

  const declaredNamespace = computeDefaultTargetNamespace(objs, object);
  const targetNamespace = namespace || declaredNamespace;
  if (!targetNamespace) {
    throw new ProviderComponentsError(
      `failed to compute components of ${describeObject(provider.kind, namespace, name)}: target namespace can't be defaulted`,
      {
        ...object,
        reason: ProviderReason.ComponentsFetchError,
      },
    );
  }
  const inventoryLabels = { [clusterctlLabel]: '', [providerNameLabel]: manifestLabel };
  objs = computeInstallOrder(computeTargetNamespace(objs, targetNamespace).map((o) => withLabels(o, inventoryLabels)));

  const step = <T>(verb: string, fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof ProviderComponentsError)) throw err;
      const reason = (err.reason ?? ProviderReason.ComponentsCustomizationError) as ProviderReason;
      throw new ProviderComponentsError(
        `failed to ${verb} components of ${describeObject(provider.kind, namespace, name)}: ${err.message}`,
        { ...object, reason },
        { cause: err },
      );
    }
  };
  objs = step('customize', () => customizeObjects(objs, provider));
  if (spec.patches !== undefined && spec.patches.length > 0) {
    const patches = spec.patches;
    objs = step('patch', () => computeGenericPatches(objs, patches));
  } else if (spec.manifestPatches !== undefined && spec.manifestPatches.length > 0) {
    const patches = spec.manifestPatches;
    objs = step('patch', () => computeManifestPatches(objs, patches));
  }
  const overrides = input.imageOverrides;
  if (overrides) objs = computeImageOverrides(objs, manifestLabel, overrides);

  return {
    providerType: providerKinds[provider.kind].providerType,
    manifestLabel,
    version,
    targetNamespace,
    variables,
    images: listImages(objs),
    inventoryLabels,
    objects: objs,
  };
}
