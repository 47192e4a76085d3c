// The one error a conversion between API versions raises: names the object and the field it could not convert.
import { CapiError } from '#shared/errors/index.ts';

/** An object that cannot be converted between `cluster.x-k8s.io` API versions. */
export class ConversionError extends CapiError {}
