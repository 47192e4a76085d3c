import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  computeImageOverride,
  parseImageOverrides,
  parseImageReference,
} from '#shared/providers/desired/compute-image-overrides.ts';
import { ProviderComponentsError } from '#shared/providers/desired/provider-components-error.ts';

const image = 'registry.k8s.io/cluster-api/cluster-api-controller:v1.9.0';

describe('computeImageOverride', () => {
  const cases: ReadonlyArray<{
    name: string;
    overrides: Record<string, { repository?: string; name?: string; tag?: string }>;
    image?: string;
    want: string;
  }> = [
    { name: 'keeps the image without overrides', overrides: {}, want: image },
    {
      name: 'replaces the repository for all components',
      overrides: { all: { repository: 'mirror.io/capi/' } },
      want: 'mirror.io/capi/cluster-api-controller:v1.9.0',
    },
    {
      name: 'lets the component entry beat all',
      overrides: { all: { tag: 'v0' }, 'cluster-api': { tag: 'v1.9.1' } },
      want: 'registry.k8s.io/cluster-api/cluster-api-controller:v1.9.1',
    },
    {
      name: 'lets the component/image entry beat the component',
      overrides: { 'cluster-api': { tag: 'a' }, 'cluster-api/cluster-api-controller': { tag: 'b' } },
      want: 'registry.k8s.io/cluster-api/cluster-api-controller:b',
    },
    { name: 'ignores other components', overrides: { 'bootstrap-kubeadm': { tag: 'x' } }, want: image },
    {
      name: 'keeps the digest',
      overrides: { all: { repository: 'm.io' } },
      image: `registry.k8s.io/a/b@sha256:${'a'.repeat(64)}`,
      want: `m.io/b@sha256:${'a'.repeat(64)}`,
    },
    {
      name: 'leaves non-canonical images alone',
      overrides: { all: { repository: 'm.io' } },
      image: 'busybox:1.36',
      want: 'busybox:1.36',
    },
  ];
  for (const c of cases)
    test(c.name, () => assert.equal(computeImageOverride('cluster-api', c.image ?? image, c.overrides), c.want));
});

describe('parseImageReference', () => {
  test('splits repository, name and tag', () =>
    assert.deepEqual(parseImageReference('localhost:5000/a/b:t'), {
      repository: 'localhost:5000/a',
      name: 'b',
      tag: 't',
      digest: '',
    }));
  test('treats docker.io short names as non-canonical', () =>
    assert.equal(parseImageReference('docker.io/nginx:1'), undefined));
});

describe('parseImageOverrides', () => {
  test('reads the clusterctl images YAML', () =>
    assert.deepEqual(parseImageOverrides('all:\n  repository: m.io\n', 'images'), { all: { repository: 'm.io' } }));
  test('refuses a malformed value', () =>
    assert.throws(() => parseImageOverrides('all: [1]', 'images'), ProviderComponentsError));
});
