// The error the CEL library functions throw for a runtime failure; the evaluator reports its message like any CEL
// error, so the message is worded as Kubernetes' Go function words it.

/** A runtime failure of a CEL library function, worded as the Go function's error. */
export class CelFunctionError extends Error {}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Whether a value fits Go's int64. */
export function fitsInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}
