// The BeforeClusterDelete hold of the handoff (docs/beside-upstream.md): a ValidatingAdmissionPolicy that refuses
// upstream's core manager the writes of its Cluster deletion while a topology Cluster waits for its BeforeClusterDelete
// hooks, as upstream's core Cluster controller waits for the ok-to-delete annotation with its RuntimeSDK and
// ClusterTopology gates on (the handoff keeps both off).
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';

/** Base name of the BeforeClusterDelete policy and its binding (prefixed with the core provider's namespace). */
export const beforeClusterDeletePolicyBaseName = 'capi-serverless-before-cluster-delete-handoff';

/** Upstream's `runtime.cluster.x-k8s.io/ok-to-delete`, set by the topology pass once BeforeClusterDelete allows. */
const okToDelete = 'runtime.cluster.x-k8s.io/ok-to-delete';
/** Upstream's core Cluster controller's finalizer, the last thing it removes. */
const clusterFinalizer = 'cluster.cluster.x-k8s.io';

/** CEL: `c` (a Cluster) is a topology Cluster being deleted that its BeforeClusterDelete hooks still hold. */
const isHeld = (c: string) =>
  `has(${c}.metadata.deletionTimestamp) && has(${c}.spec.topology) && ` +
  `!(has(${c}.metadata.annotations) && '${okToDelete}' in ${c}.metadata.annotations)`;

/** CEL: the deleted object is owned by the Cluster `params` (what upstream's reconcileDelete deletes). */
const isOwnedByParams =
  'has(oldObject.metadata.ownerReferences) && oldObject.metadata.ownerReferences.exists(r, ' +
  "r.kind == 'Cluster' && r.apiVersion.startsWith('cluster.x-k8s.io/') && r.name == params.metadata.name)";

/** CEL: the update takes upstream's Cluster finalizer away. */
const removesFinalizer =
  `has(oldObject.metadata.finalizers) && '${clusterFinalizer}' in oldObject.metadata.finalizers && ` +
  `!(has(object.metadata.finalizers) && '${clusterFinalizer}' in object.metadata.finalizers)`;

/**
 * The ValidatingAdmissionPolicy and its binding (Deny) that hold a topology Cluster's deletion for its BeforeClusterDelete
 * hooks beside upstream's core manager (`user`): until the Cluster carries `runtime.cluster.x-k8s.io/ok-to-delete`, the
 * core manager may not delete an object the Cluster owns (its MachineDeployments, MachinePools, control plane and
 * infrastructure cluster: upstream's reconcileDelete deletes exactly those) nor take its finalizer off the Cluster. The
 * Clusters of the request's namespace are the policy's params, so the API server checks the Cluster's current state.
 *
 * @example
 * computeBeforeClusterDeletePolicy({ name: 'capi-system-capi-serverless-before-cluster-delete-handoff',
 *   user: 'system:serviceaccount:capi-system:capi-manager' }).map((o) => o.kind);
 * // ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']
 */
export function computeBeforeClusterDeletePolicy(input: {
  readonly name: string;
  readonly user: string;
  readonly labels?: Readonly<Record<string, string>>;
}): ComponentObject[] {
  const { name, user } = input;
  const metadata = () => ({ name, ...(input.labels ? { labels: { ...input.labels } } : {}) });
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: metadata(),
      spec: {
        failurePolicy: 'Fail',
        paramKind: { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' },
        matchConstraints: {
          // NOTE: namespaced objects only: the params are the Clusters of the request's namespace, and the API
          // server refuses every request a binding without a param namespace matches on a cluster-scoped object
          // ("cannot use namespaced paramRef"), whoever sends it, before the matchConditions are evaluated.
          resourceRules: [
            { apiGroups: ['*'], apiVersions: ['*'], operations: ['DELETE'], resources: ['*'], scope: 'Namespaced' },
            {
              apiGroups: ['cluster.x-k8s.io'],
              apiVersions: ['*'],
              operations: ['UPDATE'],
              resources: ['clusters'],
              scope: 'Namespaced',
            },
          ],
        },
        matchConditions: [{ name: 'core-manager', expression: `request.userInfo.username == '${user}'` }],
        validations: [
          {
            expression: `request.operation != 'DELETE' || !(${isOwnedByParams}) || !(${isHeld('params')})`,
            messageExpression:
              "'Cluster ' + params.metadata.namespace + '/' + params.metadata.name + ' is waiting for its " +
              `BeforeClusterDelete hooks: capi-serverless sets ${okToDelete} once they allow the deletion'`,
            reason: 'Forbidden',
          },
          {
            expression: `request.operation != 'UPDATE' || !(${removesFinalizer}) || !(${isHeld('object')})`,
            messageExpression:
              "'Cluster ' + object.metadata.namespace + '/' + object.metadata.name + ' is waiting for its " +
              `BeforeClusterDelete hooks: capi-serverless sets ${okToDelete} once they allow the deletion'`,
            reason: 'Forbidden',
          },
        ],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: metadata(),
      spec: {
        policyName: name,
        paramRef: { selector: {}, parameterNotFoundAction: 'Allow' },
        validationActions: ['Deny'],
      },
    },
  ];
}
