// What AWS owns of the functions' and the forwarder's access to an EKS management cluster: an access entry per
// function role mapped to its own Kubernetes group (bound to a least-privilege ClusterRole by
// the Helm chart's files/functions-rbac.yaml, never cluster-admin), and the forwarder's IAM role with an EKS
// Pod Identity association for its ServiceAccount, or (IRSA) trusted by the cluster's OIDC provider for it.
import type { Stack } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Controller } from '#shared/checkpoint/table.ts';

/** The Kubernetes group each function's role is mapped to (the chart's functions-rbac.yaml binds each to its ClusterRole). */
export const functionGroups = {
  topology: 'capi-serverless:topology',
  addons: 'capi-serverless:addons',
  providers: 'capi-serverless:providers',
  rollout: 'capi-serverless:rollout',
  webhooks: 'capi-serverless:webhooks',
} as const satisfies Record<Controller | 'webhooks', string>;
export type FunctionName = keyof typeof functionGroups;

/** The forwarder's ServiceAccount (namespace and name) as the chart installs it by default, unless configured. */
export const defaultForwarderServiceAccount = {
  namespace: 'capi-serverless-system',
  name: 'capi-serverless-forwarder',
};

/**
 * Adds an access entry (construct id `<Name>AccessEntry`) per function role.
 *
 * @example
 * addFunctionAccessEntries(stack, 'mgmt', { topology: fn.role!, webhooks: webhooks.function.role! });
 */
export function addFunctionAccessEntries(
  stack: Stack,
  clusterName: string,
  roles: Readonly<Partial<Record<FunctionName, iam.IRole>>>,
): eks.CfnAccessEntry[] {
  return Object.entries(roles).map(([fn, role]) => {
    const name = fn[0]?.toUpperCase() + fn.slice(1);
    return new eks.CfnAccessEntry(stack, `${name}AccessEntry`, {
      clusterName,
      principalArn: role.roleArn,
      type: 'STANDARD',
      kubernetesGroups: [functionGroups[fn as FunctionName]],
    });
  });
}

/**
 * The forwarder's role (trusted by EKS Pod Identity) with the policy that lets it put events on the bus, and the
 * association with its ServiceAccount (construct ids `ForwarderRole`, `ForwarderPodIdentity`).
 *
 * @example
 * const role = addForwarderPodIdentity(stack, 'mgmt', forwarderPolicy, defaultForwarderServiceAccount);
 */
export function addForwarderPodIdentity(
  stack: Stack,
  clusterName: string,
  policy: iam.IManagedPolicy,
  serviceAccount: { readonly namespace: string; readonly name: string },
): iam.Role {
  const role = new iam.Role(stack, 'ForwarderRole', {
    description: 'capi-serverless event forwarder (EKS Pod Identity): puts events on the bus',
    assumedBy: new iam.ServicePrincipal('pods.eks.amazonaws.com'),
    managedPolicies: [policy],
  });
  // NOTE: Pod Identity tags the session with the cluster, namespace and ServiceAccount.
  role.assumeRolePolicy?.addStatements(
    new iam.PolicyStatement({
      actions: ['sts:TagSession'],
      principals: [new iam.ServicePrincipal('pods.eks.amazonaws.com')],
    }),
  );
  new eks.CfnPodIdentityAssociation(stack, 'ForwarderPodIdentity', {
    clusterName,
    namespace: serviceAccount.namespace,
    serviceAccount: serviceAccount.name,
    roleArn: role.roleArn,
  });
  return role;
}

/**
 * The forwarder's role for IRSA (construct id `ForwarderRole`): trusted by the cluster's IAM OIDC provider for one
 * ServiceAccount only (`sub`) and for STS only (`aud`), with the policy that lets it put events on the bus. The chart
 * annotates the ServiceAccount with it (`forwarder.identity: irsa`).
 *
 * @example
 * const role = addForwarderIrsaRole(stack, 'https://oidc.eks.eu-west-1.amazonaws.com/id/ABC', policy, serviceAccount);
 */
export function addForwarderIrsaRole(
  stack: Stack,
  oidcIssuer: string,
  policy: iam.IManagedPolicy,
  serviceAccount: { readonly namespace: string; readonly name: string },
): iam.Role {
  const issuer = oidcIssuer.replace(/^https:\/\//, '');
  const provider = `arn:${stack.partition}:iam::${stack.account}:oidc-provider/${issuer}`;
  return new iam.Role(stack, 'ForwarderRole', {
    description: 'capi-serverless event forwarder (IRSA): puts events on the bus',
    assumedBy: new iam.WebIdentityPrincipal(provider, {
      StringEquals: {
        [`${issuer}:sub`]: `system:serviceaccount:${serviceAccount.namespace}:${serviceAccount.name}`,
        [`${issuer}:aud`]: 'sts.amazonaws.com',
      },
    }),
    managedPolicies: [policy],
  });
}

/**
 * The EKS Pod Identity Agent add-on (construct id `PodIdentityAgent`), kept when the stack is deleted (other
 * workloads may use it); an existing self-managed agent is overwritten.
 *
 * @example
 * addPodIdentityAgent(stack, 'mgmt');
 */
export function addPodIdentityAgent(stack: Stack, clusterName: string): eks.CfnAddon {
  return new eks.CfnAddon(stack, 'PodIdentityAgent', {
    clusterName,
    addonName: 'eks-pod-identity-agent',
    resolveConflicts: 'OVERWRITE',
    preserveOnDelete: true,
  });
}
