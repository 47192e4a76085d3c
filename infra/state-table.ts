// The state table: leases, checkpoints and the sparse due index the ticks query (shared/checkpoint/table.ts holds the
// key names both sides use), on demand, with point-in-time recovery and deletion protection.
import { RemovalPolicy, type Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { dueIndex, tableDesign } from '#shared/checkpoint/table.ts';

/** The DynamoDB actions a pass uses: get the checkpoint, conditional put/update/delete of lease rows, transactions. */
export const tableActions = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
  // NOTE: the tick: Query on the due index, BatchGetItem of checkpoints during a sweep.
  'dynamodb:Query',
  'dynamodb:BatchGetItem',
] as const;

/**
 * Adds the table to the stack (construct id `State`, kept so a deployed table is never replaced).
 *
 * @example
 * const table = createStateTable(stack, { deletionProtection: true });
 */
export function createStateTable(stack: Stack, options: { readonly deletionProtection: boolean }): dynamodb.Table {
  const table = new dynamodb.Table(stack, 'State', {
    partitionKey: { name: tableDesign.partitionKey.name, type: dynamodb.AttributeType.STRING },
    sortKey: { name: tableDesign.sortKey.name, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: tableDesign.timeToLiveAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: options.deletionProtection,
    removalPolicy: options.deletionProtection ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
  // NOTE: the sparse due index the ticks query instead of reading every checkpoint (shared/checkpoint/due.ts).
  table.addGlobalSecondaryIndex({
    indexName: dueIndex.name,
    partitionKey: { name: dueIndex.partitionKey.name, type: dynamodb.AttributeType.STRING },
    sortKey: { name: dueIndex.sortKey.name, type: dynamodb.AttributeType.NUMBER },
    projectionType: dynamodb.ProjectionType.KEYS_ONLY,
  });
  return table;
}
