// A synthesized stack's output value with CloudFormation's intrinsics resolved as a deployed stack would resolve them
// (fixed account, region and physical ids): what `aws cloudformation describe-stacks` prints for it after `cdk deploy`.
type Resources = Readonly<Record<string, { readonly Type: string }>>;

const account = '111122223333';

/**
 * Resolves Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::Select and Fn::Split against fake physical resources.
 *
 * @example
 * JSON.parse(resolveOutput(template.Outputs.ChartValues.Value, template.Resources, 'eu-west-1')).region; // 'eu-west-1'
 */
export function resolveOutput(value: unknown, resources: Resources, region: string): string {
  const ref = (id: string): string => {
    const pseudo: Record<string, string> = {
      'AWS::Region': region,
      'AWS::AccountId': account,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': 'CapiServerless',
    };
    if (pseudo[id]) return pseudo[id];
    const type = resources[id]?.Type;
    if (type === 'AWS::IAM::ManagedPolicy') return `arn:aws:iam::${account}:policy/${id}`;
    if (type === 'AWS::SecretsManager::Secret')
      return `arn:aws:secretsmanager:${region}:${account}:secret:${id}-AbCdEf`;
    if (type === undefined) throw new Error(`Ref to unknown ${id}`);
    return `capiserverless-${id.toLowerCase()}-abc123`;
  };
  const getAtt = (id: string, attr: string): string => {
    const type = resources[id]?.Type;
    if (type === 'AWS::IAM::Role' && attr === 'Arn') return `arn:aws:iam::${account}:role/${id}`;
    if (type === 'AWS::Lambda::Url' && attr === 'FunctionUrl')
      return `https://${id.toLowerCase()}.lambda-url.${region}.on.aws/`;
    if (type === 'AWS::Events::EventBus' && attr === 'Name') return ref(id);
    throw new Error(`Fn::GetAtt ${id}.${attr} (${type ?? 'unknown'}) is not resolved by this test`);
  };
  const resolve = (v: unknown): unknown => {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
    if (Array.isArray(v)) return v.map(resolve);
    const o = v as Record<string, unknown>;
    const [key] = Object.keys(o);
    const arg = key === undefined ? undefined : o[key];
    switch (key) {
      case 'Ref':
        return ref(arg as string);
      case 'Fn::GetAtt': {
        const [id, attr] = arg as [string, string];
        return getAtt(id, attr);
      }
      case 'Fn::Join': {
        const [sep, parts] = arg as [string, unknown[]];
        return parts.map((p) => String(resolve(p))).join(sep);
      }
      case 'Fn::Select': {
        const [index, list] = arg as [number, unknown];
        return (resolve(list) as unknown[])[Number(index)];
      }
      case 'Fn::Split': {
        const [sep, text] = arg as [string, unknown];
        return String(resolve(text)).split(sep);
      }
      case 'Fn::Sub': {
        const text = typeof arg === 'string' ? arg : (arg as [string])[0];
        return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
          const [id, attr] = name.split('.');
          return attr ? getAtt(id ?? '', attr) : ref(id ?? '');
        });
      }
      default:
        throw new Error(`intrinsic ${String(key)} is not resolved by this test`);
    }
  };
  return String(resolve(value));
}
