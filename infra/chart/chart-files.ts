// Where the Helm chart of the cluster side lives (infra/chart/capi-serverless), and the static objects it ships under
// files/ (the RBAC, flow control and webhook configurations the templates read), for the code and the tests that read
// them without helm.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The chart's directory (`helm install <release> infra/chart/capi-serverless`). */
export const chartDir = join(dirname(fileURLToPath(import.meta.url)), 'capi-serverless');

/** The chart's default values (forwarder resources, probes, …). */
export const chartValuesFile = join(chartDir, 'values.yaml');

/**
 * A file under the chart's files/.
 *
 * @example
 * readFileSync(chartFile('flow-control.yaml'), 'utf8');
 */
export function chartFile(name: string): string {
  return join(chartDir, 'files', name);
}
