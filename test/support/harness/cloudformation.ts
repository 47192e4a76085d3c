// What `aws cloudformation describe-stacks` and `list-stack-resources` answer, for tests against an AWS API emulator:
// the CloudFormation Query API (form-encoded POST, XML answer), signed with SigV4 (functions/forwarder's signer), so
// no AWS SDK client for CloudFormation is needed.
import { signAwsRequest, type AwsCredentials } from '#functions/forwarder/sign-aws-request.ts';

export type CloudFormationEndpoint = {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: AwsCredentials;
};

export type StackDescription = {
  readonly stackName: string;
  readonly status: string;
  readonly outputs: Readonly<Record<string, string>>;
  readonly tags: Readonly<Record<string, string>>;
};

export type StackResourceSummary = {
  readonly logicalId: string;
  /** Empty when the emulator does not model the resource's type. */
  readonly type: string;
  readonly physicalId: string;
  readonly status: string;
};

const unescapeXml = (text: string) =>
  text
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n: string) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The text of the first `<tag>` in `xml` ('' when absent). */
const textOf = (xml: string, tag: string) => unescapeXml(new RegExp(`<${tag}>([^]*?)</${tag}>`).exec(xml)?.[1] ?? '');

/** The contents of every `<member>` inside the first `<list>` (members without nested lists). */
function membersOf(xml: string, list: string): string[] {
  const inner = new RegExp(`<${list}>([^]*?)</${list}>`).exec(xml)?.[1] ?? '';
  return [...inner.matchAll(/<member>([^]*?)<\/member>/g)].map((m) => m[1] ?? '');
}

async function callCloudFormation(cfn: CloudFormationEndpoint, params: Record<string, string>): Promise<string> {
  const url = new URL(cfn.endpoint);
  const body = new URLSearchParams({ ...params, Version: '2010-05-15' }).toString();
  const headers = signAwsRequest(
    {
      method: 'POST',
      host: url.host,
      path: '/',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body,
      region: cfn.region,
      service: 'cloudformation',
    },
    cfn.credentials,
    Date.now(),
  );
  const { host: _host, ...sent } = headers;
  const res = await fetch(`${cfn.endpoint}/`, { method: 'POST', headers: sent, body });
  const text = await res.text();
  if (!res.ok)
    throw new Error(
      `CloudFormation ${params['Action']} answered HTTP ${res.status}: ${textOf(text, 'Message') || text.slice(0, 300)}`,
    );
  return text;
}

/**
 * DescribeStacks of one stack: status, outputs and tags.
 *
 * @example
 * const { outputs } = await describeStack(cfn, 'CapiServerless');
 * const values = JSON.parse(outputs['ChartValues']);
 */
export async function describeStack(cfn: CloudFormationEndpoint, stackName: string): Promise<StackDescription> {
  const xml = await callCloudFormation(cfn, { Action: 'DescribeStacks', StackName: stackName });
  // NOTE: one stack asked for, so the list holds one member; its own lists (Parameters, Outputs, Tags) nest members.
  const stack = /<Stacks>([^]*?)<\/Stacks>/.exec(xml)?.[1];
  if (!stack?.includes('<StackStatus>')) throw new Error(`DescribeStacks ${stackName}: no stack`);
  const pairs = (list: string, key: string, value: string) =>
    Object.fromEntries(membersOf(stack, list).map((m) => [textOf(m, key), textOf(m, value)]));
  return {
    stackName: textOf(stack, 'StackName'),
    status: textOf(stack, 'StackStatus'),
    outputs: pairs('Outputs', 'OutputKey', 'OutputValue'),
    tags: pairs('Tags', 'Key', 'Value'),
  };
}

/**
 * ListStackResources of one stack (every page).
 *
 * @example
 * const unmodelled = (await listStackResources(cfn, 'CapiServerless')).filter((r) => r.type === '');
 */
export async function listStackResources(
  cfn: CloudFormationEndpoint,
  stackName: string,
): Promise<StackResourceSummary[]> {
  const resources: StackResourceSummary[] = [];
  let next: string | undefined;
  do {
    const xml = await callCloudFormation(cfn, {
      Action: 'ListStackResources',
      StackName: stackName,
      ...(next ? { NextToken: next } : {}),
    });
    for (const m of membersOf(xml, 'StackResourceSummaries'))
      resources.push({
        logicalId: textOf(m, 'LogicalResourceId'),
        type: textOf(m, 'ResourceType'),
        physicalId: textOf(m, 'PhysicalResourceId'),
        status: textOf(m, 'ResourceStatus'),
      });
    next = textOf(xml, 'NextToken') || undefined;
  } while (next);
  return resources;
}
