// The part of the Lambda context the runtime uses, and a stand-in for local mode and tests.
import { randomUUID } from 'node:crypto';

/** What the runtime reads from the Lambda context (a subset of the `aws-lambda` Context type). */
export type LambdaContextLike = {
  readonly awsRequestId: string;
  readonly functionName: string;
  readonly functionVersion?: string;
  readonly invokedFunctionArn?: string;
  readonly memoryLimitInMB?: string;
  getRemainingTimeInMillis(): number;
};

/**
 * A context for invoking a handler outside Lambda (local bus, ticks on a timer, tests): a fresh request id and a
 * deadline `timeoutMs` from now.
 *
 * @example
 * await handler(event, localLambdaContext('topology', 60_000));
 */
export function localLambdaContext(
  functionName: string,
  timeoutMs: number,
  requestId = randomUUID(),
): LambdaContextLike {
  const deadline = Date.now() + timeoutMs;
  return {
    awsRequestId: requestId,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}
