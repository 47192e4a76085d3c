// What capi-serverless knows of a kind to generate its CRD and address it on the API server, in its own module so the
// kind lists (kinds.ts) and the groups that declare their own kinds (operator/v1alpha2/provider.ts) both use it and
// neither imports the other.
import type { z } from 'zod';

export type PrinterColumn = {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date' | 'boolean' | 'number';
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
};

export type KindInfo = {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly schema: z.ZodType;
  /**
   * Older versions also served (not stored), each with its own schema. NOTE: without a conversion webhook the API
   * server converts between them by rewriting apiVersion only, so these CRDs are for tests and local mode.
   */
  readonly servedVersions?: readonly { readonly version: string; readonly schema: z.ZodType }[];
  readonly printerColumns?: readonly PrinterColumn[];
  readonly scale?: {
    readonly specReplicasPath: string;
    readonly statusReplicasPath: string;
    readonly labelSelectorPath?: string;
  };
};
