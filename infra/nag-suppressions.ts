// cdk-nag findings (AwsSolutions and Serverless packs) that remain by design, each acknowledged on the construct it
// concerns with its reason (CDK's `Validations.of(...).acknowledge`, which cdk-nag v3 honours); the stack's unit test
// runs both packs and fails on any finding not acknowledged here.
import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import type { WebhooksFunction } from './webhooks/webhooks-function.ts';

export type AcceptedFindingsScope = {
  /** The controller functions (asynchronous: EventBridge rules and schedules invoke them). */
  readonly controllerFunctions: readonly lambda.Function[];
  /** Their dead-letter queues. */
  readonly deadLetterQueues: readonly sqs.Queue[];
  readonly webhooks: WebhooksFunction;
  /** Roles EventBridge Scheduler created to invoke the controller functions. */
  readonly schedulerRoles: readonly IConstruct[];
  /** The functions run in private subnets (no X-Ray: it would need an interface endpoint or a NAT gateway). */
  readonly privateNetwork?: boolean;
  /** X-Ray active tracing is on (the opt-in `tracing` setting). */
  readonly tracing?: boolean;
  /** The group the controller functions create their one-time schedules in (none in private subnets). */
  readonly wakeUpScheduleGroupName?: string;
};

const acknowledge = (scope: IConstruct, id: string, reason: string) =>
  Validations.of(scope).acknowledge({ id, reason });

/**
 * Adds the reasoned acknowledgements to the stack's constructs.
 *
 * @example
 * acknowledgeAcceptedFindings({ controllerFunctions, deadLetterQueues, webhooks, schedulerRoles });
 */
export function acknowledgeAcceptedFindings(scope: AcceptedFindingsScope): void {
  const allFunctions = [...scope.controllerFunctions, scope.webhooks.function];
  for (const fn of allFunctions) {
    const nodeReason =
      'the runtime is Node.js 22 on purpose: engines, CI and local mode run the same major version and move together';
    acknowledge(fn, 'AwsSolutions-L1', nodeReason);
    acknowledge(fn, 'Serverless-LambdaLatestVersion', nodeReason);
    acknowledge(
      fn,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      'the basic execution role only allows writing the function’s own logs (CreateLogStream/PutLogEvents)',
    );
    if (scope.privateNetwork) {
      acknowledge(
        fn,
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
        'private subnets: the VPC access role lets Lambda create and delete the function’s network interfaces',
      );
      acknowledge(
        fn,
        'Serverless-LambdaTracing',
        'private subnets without egress: X-Ray would need an interface endpoint or a NAT gateway, billed by the hour',
      );
    } else if (!scope.tracing) {
      acknowledge(
        fn,
        'Serverless-LambdaTracing',
        'X-Ray is opt-in (setting `tracing=true`): it bills per trace and the pass and tick log lines carry the same ' +
          'timings; the health alarm does not depend on traces',
      );
    }
    acknowledge(
      fn,
      'AwsSolutions-IAM5[Resource::*]',
      'X-Ray PutTraceSegments/PutTelemetryRecords (active tracing) accept no resource but "*"',
    );
  }
  const webhooks = scope.webhooks.function;
  const synchronous = 'only the Function URL invokes it, synchronously; the API server applies failurePolicy';
  acknowledge(webhooks, 'Serverless-LambdaAsyncFailureDestination', synchronous);
  acknowledge(webhooks, 'Serverless-LambdaDLQ', synchronous);
  if (scope.wakeUpScheduleGroupName !== undefined)
    for (const fn of scope.controllerFunctions)
      acknowledge(
        fn,
        `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${scope.wakeUpScheduleGroupName}/*]`,
        'one-time schedules are named per object at run time; the grant is the stack’s own schedule group only',
      );
  for (const queue of scope.deadLetterQueues) {
    acknowledge(
      queue,
      'Serverless-SQSRedrivePolicy',
      'this queue is itself a dead-letter queue, kept for redrive; each failed event is also sent to the alarm topic',
    );
  }
  // NOTE: granular findings name the function by logical ID; each scheduler role invokes one of these functions.
  const invokeFindings = scope.controllerFunctions.map(
    (fn) => `AwsSolutions-IAM5[Resource::<${Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement)}.Arn>:*]`,
  );
  for (const role of scope.schedulerRoles) {
    for (const id of invokeFindings) {
      acknowledge(
        role,
        id,
        'EventBridge Scheduler’s role may invoke one controller function and its versions (`<function arn>:*`)',
      );
    }
  }
}
