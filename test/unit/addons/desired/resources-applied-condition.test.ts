import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Condition } from '#shared/api/core/v1beta1/condition.ts';
import type { ClusterOutcome } from '#shared/addons/desired/resource-outcome.ts';
import {
  computeResourcesAppliedCondition,
  computeResourcesAppliedV1Beta2Condition,
  type ResourcesAppliedInput,
} from '#shared/addons/desired/resources-applied-condition.ts';
import { deepFreeze } from '#test/support/fixtures/addons.ts';

const now = new Date('2024-05-06T07:08:09Z');
const cm = { name: 'cni', kind: 'ConfigMap' } as const;
const sec = { name: 'db', kind: 'Secret' } as const;
const on = (name: string, resources: ClusterOutcome['resources'], remoteClientError?: string): ClusterOutcome => ({
  cluster: { namespace: 'ns', name },
  resources,
  ...(remoteClientError === undefined ? {} : { remoteClientError }),
});

describe('computeResourcesAppliedCondition', () => {
  const cases: {
    name: string;
    clusterMatchError?: string;
    clusters: ClusterOutcome[];
    want: Omit<Condition, 'lastTransitionTime'> | undefined;
  }[] = [
    {
      name: 'is True when every resource applied or was skipped on every cluster',
      clusters: [on('c1', [{ ref: cm, outcome: 'Applied', hash: 'h' }]), on('c2', [{ ref: cm, outcome: 'Skipped' }])],
      want: { type: 'ResourcesApplied', status: 'True' },
    },
    {
      name: 'stays True for a missing resource, as upstream skips it silently',
      clusters: [on('c1', [{ ref: cm, outcome: 'NotFound' }])],
      want: { type: 'ResourcesApplied', status: 'True' },
    },
    {
      name: 'says nothing when no cluster matches',
      clusters: [],
      want: undefined,
    },
    {
      name: 'is False ClusterMatchFailed when clusters could not be listed',
      clusterMatchError: 'failed to list clusters: forbidden',
      clusters: [],
      want: {
        type: 'ResourcesApplied',
        status: 'False',
        severity: 'Warning',
        reason: 'ClusterMatchFailed',
        message: 'failed to list clusters: forbidden',
      },
    },
    {
      name: 'is False ApplyFailed naming the resource and the cluster, even when a later cluster succeeded',
      clusters: [
        on('c2', [{ ref: cm, outcome: 'Applied', hash: 'h' }]),
        on('c1', [{ ref: cm, outcome: 'ApplyFailed', hash: 'h', message: 'admission webhook denied' }]),
      ],
      want: {
        type: 'ResourcesApplied',
        status: 'False',
        severity: 'Warning',
        reason: 'ApplyFailed',
        message: 'failed to apply ConfigMap ns/cni to Cluster ns/c1: admission webhook denied',
      },
    },
    {
      name: 'prefers RemoteClusterClientFailed (severity Error) over ApplyFailed and lists clusters in name order',
      clusters: [
        on('c2', [{ ref: cm, outcome: 'ApplyFailed', hash: 'h', message: 'denied' }]),
        on('c1', [], 'connection refused'),
      ],
      want: {
        type: 'ResourcesApplied',
        status: 'False',
        severity: 'Error',
        reason: 'RemoteClusterClientFailed',
        message:
          'failed to get a client for Cluster ns/c1: connection refused; failed to apply ConfigMap ns/cni to Cluster ns/c2: denied',
      },
    },
    {
      name: 'is False WrongSecretType once, however many clusters saw it',
      clusters: ['c1', 'c2'].map((c) =>
        on(c, [
          { ref: sec, outcome: 'WrongSecretType', message: 'unsupported secret type: Secret ns/db has type "Opaque"' },
        ]),
      ),
      want: {
        type: 'ResourcesApplied',
        status: 'False',
        severity: 'Warning',
        reason: 'WrongSecretType',
        message: 'unsupported secret type: Secret ns/db has type "Opaque"',
      },
    },
    {
      name: 'is False RetrievingResourceFailed when a resource could not be read',
      clusters: [on('c1', [{ ref: sec, outcome: 'RetrievingResourceFailed', message: 'secrets "db" is forbidden' }])],
      want: {
        type: 'ResourcesApplied',
        status: 'False',
        severity: 'Warning',
        reason: 'RetrievingResourceFailed',
        message: 'failed to get Secret ns/db: secrets "db" is forbidden',
      },
    },
    {
      name: 'reports unreadable data as ApplyFailed with the parse message',
      clusters: [
        on('c1', [
          {
            ref: cm,
            outcome: 'Invalid',
            message: 'failed to parse ConfigMap ns/cni key "a.yaml" document 1: invalid YAML: x',
          },
        ]),
      ],
      want: {
        type: 'ResourcesApplied',
        status: 'False',
        severity: 'Warning',
        reason: 'ApplyFailed',
        message: 'failed to parse ConfigMap ns/cni key "a.yaml" document 1: invalid YAML: x',
      },
    },
    {
      name: 'strips UIDs and keeps only the first line so retries do not churn',
      clusters: [
        on('c1', [
          {
            ref: cm,
            outcome: 'ApplyFailed',
            hash: 'h',
            message: 'Precondition failed: UID in precondition: 0b7e3a4c-1234-4cde-8f00-aabbccddeeff\nstack',
          },
        ]),
      ],
      want: {
        type: 'ResourcesApplied',
        status: 'False',
        severity: 'Warning',
        reason: 'ApplyFailed',
        message: 'failed to apply ConfigMap ns/cni to Cluster ns/c1: Precondition failed: UID in precondition: <uid>',
      },
    },
    {
      name: 'shows at most five failures',
      clusters: ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'].map((c) => on(c, [], 'timeout')),
      want: {
        type: 'ResourcesApplied',
        status: 'False',
        severity: 'Error',
        reason: 'RemoteClusterClientFailed',
        message: `${['c1', 'c2', 'c3', 'c4', 'c5'].map((c) => `failed to get a client for Cluster ns/${c}: timeout`).join('; ')}; and 2 more`,
      },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const input = deepFreeze({
        clusters: c.clusters,
        ...(c.clusterMatchError ? { clusterMatchError: c.clusterMatchError } : {}),
      });
      const got = computeResourcesAppliedCondition(input, now);
      assert.deepEqual(
        got,
        c.want === undefined ? undefined : { ...c.want, lastTransitionTime: '2024-05-06T07:08:09Z' },
      );
    });
  }

  test('keeps lastTransitionTime when nothing about the condition changed', () => {
    const previous: Condition = deepFreeze({
      type: 'ResourcesApplied',
      status: 'True',
      lastTransitionTime: '2020-01-01T00:00:00Z',
    });
    const got = computeResourcesAppliedCondition(deepFreeze({ clusters: [on('c1', [])] }), now, previous);
    assert.equal(got?.lastTransitionTime, '2020-01-01T00:00:00Z');
  });

  test('moves lastTransitionTime when the message changes', () => {
    const previous: Condition = deepFreeze({
      type: 'ResourcesApplied',
      status: 'False',
      severity: 'Error',
      reason: 'RemoteClusterClientFailed',
      message: 'old',
      lastTransitionTime: '2020-01-01T00:00:00Z',
    });
    const got = computeResourcesAppliedCondition(deepFreeze({ clusters: [on('c1', [], 'new')] }), now, previous);
    assert.equal(got?.lastTransitionTime, '2024-05-06T07:08:09Z');
  });
});

describe('computeResourcesAppliedV1Beta2Condition', () => {
  const internalError = ['False', 'InternalError', 'Please check controller logs for errors'];
  const cases: { name: string; input: ResourcesAppliedInput; want: string[] | undefined }[] = [
    {
      name: 'is True with reason Applied and an empty message when every cluster succeeded',
      input: { clusters: [on('c1', [{ ref: cm, outcome: 'Applied', hash: 'h' }])] },
      want: ['True', 'Applied', ''],
    },
    { name: 'says nothing when no cluster matches', input: { clusters: [] }, want: undefined },
    {
      name: 'is InternalError with upstream message when clusters could not be listed',
      input: { clusterMatchError: 'failed to list clusters: boom', clusters: [] },
      want: internalError,
    },
    {
      name: 'is InternalError when a workload cluster cannot be reached, as upstream v1.14',
      input: { clusters: [on('c1', [{ ref: cm, outcome: 'Skipped' }], 'connection refused')] },
      want: internalError,
    },
    {
      name: 'is InternalError when a resource could not be read',
      input: { clusters: [on('c1', [{ ref: sec, outcome: 'RetrievingResourceFailed', message: 'forbidden' }])] },
      want: internalError,
    },
    {
      name: 'is WrongSecretType naming the Secret, as upstream',
      input: { clusters: [on('c1', [{ ref: sec, outcome: 'WrongSecretType', message: 'Opaque' }])] },
      want: ['False', 'WrongSecretType', 'Secret type of resource db is not supported'],
    },
    {
      name: 'is NotApplied when an apply failed',
      input: { clusters: [on('c1', [{ ref: cm, outcome: 'ApplyFailed', hash: 'h', message: 'denied' }])] },
      want: ['False', 'NotApplied', 'Failed to apply ClusterResourceSet resources to Cluster'],
    },
    {
      name: 'is NotApplied for unreadable data (the v1beta1 condition says ApplyFailed)',
      input: { clusters: [on('c1', [{ ref: cm, outcome: 'Invalid', message: 'bad yaml' }])] },
      want: ['False', 'NotApplied', 'Failed to apply ClusterResourceSet resources to Cluster'],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const got = computeResourcesAppliedV1Beta2Condition(deepFreeze(c.input), 3, now);
      assert.deepEqual(got && [got.status, got.reason, got.message], c.want);
      if (got) {
        assert.equal(got.type, 'ResourcesApplied');
        assert.equal(got.observedGeneration, 3);
        assert.equal(got.lastTransitionTime, '2024-05-06T07:08:09Z');
      }
    });
  }

  test('keeps lastTransitionTime while the status stays, even when the reason changes (meta.SetStatusCondition)', () => {
    const previous = {
      type: 'ResourcesApplied',
      status: 'False' as const,
      reason: 'NotApplied',
      message: 'Failed to apply ClusterResourceSet resources to Cluster',
      lastTransitionTime: '2024-01-01T00:00:00Z',
    };
    const input = { clusters: [on('c1', [{ ref: sec, outcome: 'WrongSecretType' as const, message: 'Opaque' }])] };
    const got = computeResourcesAppliedV1Beta2Condition(input, 1, now, previous);
    assert.equal(got?.reason, 'WrongSecretType');
    assert.equal(got?.lastTransitionTime, '2024-01-01T00:00:00Z');
    const flipped = computeResourcesAppliedV1Beta2Condition(
      { clusters: [on('c1', [{ ref: cm, outcome: 'Applied', hash: 'h' }])] },
      1,
      now,
      previous,
    );
    assert.equal(flipped?.lastTransitionTime, '2024-05-06T07:08:09Z');
  });
});
