// A kubeconfig that cannot be read or used, in its own module so the reader (kubeconfig.ts) and the parser it loads
// on demand (parse-kubeconfig.ts) both throw it and neither imports the other.
import { CapiError } from '#shared/errors/index.ts';

export class KubeconfigError extends CapiError {}
