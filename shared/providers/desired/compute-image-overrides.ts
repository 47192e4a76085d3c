// clusterctl image overrides (the `images` config key): repository/name/tag replacements for the containers of
// Deployments and DaemonSets, keyed by `all`, the provider's manifest label, or `<manifest label>/<image name>`.
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import { ProviderComponentsError, ProviderReason } from '#shared/providers/desired/provider-components-error.ts';

export const ImageMeta = z.object({
  repository: z.string().optional(),
  name: z.string().optional(),
  tag: z.string().optional(),
});
export type ImageMeta = z.infer<typeof ImageMeta>;
export const ImageOverrides = z.record(z.string(), ImageMeta);
export type ImageOverrides = z.infer<typeof ImageOverrides>;

/** The config key clusterctl reads image overrides from. */
export const imagesConfigKey = 'images';

/**
 * Parses the YAML of an `images` config value (`all: {repository: my.registry/capi}`).
 *
 * @example
 * parseImageOverrides('cluster-api:\n  tag: v1.9.1\n'); // { 'cluster-api': { tag: 'v1.9.1' } }
 */
export function parseImageOverrides(text: string, source: string): ImageOverrides {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (err) {
    throw new ProviderComponentsError(
      `failed to unmarshal image override configurations from ${source}: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}`,
      { reason: ProviderReason.ComponentsImageOverrideError },
      { cause: err },
    );
  }
  const parsed = ImageOverrides.safeParse(raw);
  if (!parsed.success) {
    throw new ProviderComponentsError(
      `failed to unmarshal image override configurations from ${source}: ${parsed.error.issues[0]?.message ?? ''}`,
      {
        reason: ProviderReason.ComponentsImageOverrideError,
      },
    );
  }
  return parsed.data;
}

type ImageRef = { repository: string; name: string; tag: string; digest: string };

/**
 * Splits a canonical image reference (`registry.k8s.io/cluster-api/cluster-api-controller:v1.9.0`) into repository,
 * name, tag and digest; undefined for references that are not canonical (no registry domain, `docker.io/nginx`).
 */
export function parseImageReference(image: string): ImageRef | undefined {
  const at = image.indexOf('@');
  const digest = at >= 0 ? image.slice(at + 1) : '';
  const rest = at >= 0 ? image.slice(0, at) : image;
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  const tag = colon > slash ? rest.slice(colon + 1) : '';
  const path = colon > slash ? rest.slice(0, colon) : rest;
  const parts = path.split('/');
  const domain = parts[0] ?? '';
  const isDomain = domain.includes('.') || domain.includes(':') || domain === 'localhost';
  if (parts.length < 2 || !isDomain || parts.some((p) => p === '')) return undefined;
  if (parts.slice(1).some((p) => !/^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/.test(p))) return undefined;
  if ((domain === 'docker.io' || domain === 'index.docker.io') && (domain === 'index.docker.io' || parts.length === 2))
    return undefined;
  if (tag !== '' && !/^[\w][\w.-]{0,127}$/.test(tag)) return undefined;
  if (digest !== '' && !/^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/.test(digest))
    return undefined;
  return { repository: parts.slice(0, -1).join('/'), name: parts[parts.length - 1] ?? '', tag, digest };
}

function imageString(i: ImageRef): string {
  return `${i.repository}/${i.name}${i.tag ? `:${i.tag}` : ''}${i.digest ? `@${i.digest}` : ''}`;
}

/**
 * The image after overrides: `all`, then `<component>`, then `<component>/<image name>` (later wins, field by
 * field). Non-canonical references are kept as they are.
 *
 * @example
 * computeImageOverride('cluster-api', 'registry.k8s.io/cluster-api/cluster-api-controller:v1.9.0', { all: { repository: 'my.io/capi' } });
 * // 'my.io/capi/cluster-api-controller:v1.9.0'
 */
export function computeImageOverride(component: string, image: string, overrides: ImageOverrides): string {
  const ref = parseImageReference(image);
  if (!ref) return image;
  const layers = [overrides['all'], overrides[component], overrides[`${component}/${ref.name}`]];
  const meta: ImageMeta = {};
  for (const layer of layers) {
    if (!layer) continue;
    if (layer.repository) meta.repository = layer.repository;
    if (layer.name) meta.name = layer.name;
    if (layer.tag) meta.tag = layer.tag;
  }
  if (!meta.repository && !meta.name && !meta.tag) return image;
  return imageString({
    repository: meta.repository ? meta.repository.replace(/\/$/, '') : ref.repository,
    name: meta.name || ref.name,
    tag: meta.tag || ref.tag,
    digest: ref.digest,
  });
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Applies image overrides to the containers and init containers of every Deployment and DaemonSet; other objects
 * are returned as they are. Inputs are not modified.
 */
export function computeImageOverrides(
  objs: readonly ComponentObject[],
  component: string,
  overrides: ImageOverrides,
): ComponentObject[] {
  return objs.map((input) => {
    if (input.kind !== 'Deployment' && input.kind !== 'DaemonSet') return input;
    const o = structuredClone(input) as ComponentObject;
    const spec = o['spec'];
    const template = isRecord(spec) ? spec['template'] : undefined;
    const pod = isRecord(template) ? template['spec'] : undefined;
    if (!isRecord(pod)) return o;
    for (const key of ['containers', 'initContainers']) {
      const list = pod[key];
      if (!Array.isArray(list)) continue;
      for (const c of list)
        if (isRecord(c) && typeof c['image'] === 'string')
          c['image'] = computeImageOverride(component, c['image'], overrides);
    }
    return o;
  });
}

/** Images used by the containers and init containers of Deployments and DaemonSets (clusterctl `InspectImages`). */
export function listImages(objs: readonly ComponentObject[]): string[] {
  const out: string[] = [];
  for (const o of objs) {
    if (o.kind !== 'Deployment' && o.kind !== 'DaemonSet') continue;
    const spec = o['spec'];
    const template = isRecord(spec) ? spec['template'] : undefined;
    const pod = isRecord(template) ? template['spec'] : undefined;
    if (!isRecord(pod)) continue;
    for (const key of ['containers', 'initContainers']) {
      const list = pod[key];
      if (Array.isArray(list))
        for (const c of list) if (isRecord(c) && typeof c['image'] === 'string') out.push(c['image']);
    }
  }
  return out;
}
