import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatFloat } from '#shared/lang/go/format-float.ts';
import type { FloatFormat } from '#shared/lang/go/format-float.ts';

describe('formatFloat', () => {
  const cases: readonly {
    readonly name: string;
    readonly f: number;
    readonly fmt: FloatFormat;
    readonly prec: number;
    readonly want: string;
  }[] = [
    { name: 'prints a million in exponent form as %v does', f: 1e6, fmt: 'g', prec: -1, want: '1e+06' },
    { name: 'keeps six-digit integers in plain form', f: 123456, fmt: 'g', prec: -1, want: '123456' },
    { name: 'prints the shortest digits of a fraction', f: 1.5, fmt: 'g', prec: -1, want: '1.5' },
    { name: 'switches to exponent form below 1e-4', f: 0.00001, fmt: 'g', prec: -1, want: '1e-05' },
    { name: 'keeps 1e-4 in plain form', f: 0.0001, fmt: 'g', prec: -1, want: '0.0001' },
    { name: 'keeps every shortest digit in exponent form', f: 1234567.5, fmt: 'g', prec: -1, want: '1.2345675e+06' },
    { name: 'rounds to the significant digits asked', f: 1234567, fmt: 'g', prec: 3, want: '1.23e+06' },
    { name: 'reads precision 0 of %g as 1', f: 100, fmt: 'g', prec: 0, want: '1e+02' },
    { name: 'upper-cases %G', f: 1e-7, fmt: 'G', prec: -1, want: '1E-07' },
    { name: 'prints the shortest %e', f: 123456789, fmt: 'e', prec: -1, want: '1.23456789e+08' },
    { name: 'prints zero in %e with two exponent digits', f: 0, fmt: 'e', prec: -1, want: '0e+00' },
    { name: 'keeps the sign of negative zero', f: -0, fmt: 'g', prec: -1, want: '-0' },
    { name: 'rounds %e exactly', f: 123.456, fmt: 'e', prec: 3, want: '1.235e+02' },
    { name: 'rounds %f on the binary value, not the decimal text', f: 1.005, fmt: 'f', prec: 2, want: '1.00' },
    { name: 'rounds an exact half to even', f: 2.5, fmt: 'f', prec: 0, want: '2' },
    { name: 'rounds the other exact half to even', f: 3.5, fmt: 'f', prec: 0, want: '4' },
    { name: 'prints the shortest %f without an exponent', f: 1.5e-7, fmt: 'f', prec: -1, want: '0.00000015' },
    { name: 'prints a large shortest %f in full', f: 1e21, fmt: 'f', prec: -1, want: '1000000000000000000000' },
    { name: 'prints the smallest denormal', f: 5e-324, fmt: 'g', prec: -1, want: '5e-324' },
    { name: 'prints NaN', f: Number.NaN, fmt: 'g', prec: -1, want: 'NaN' },
    { name: 'prints +Inf with its sign', f: Number.POSITIVE_INFINITY, fmt: 'e', prec: -1, want: '+Inf' },
    { name: 'prints -Inf', f: Number.NEGATIVE_INFINITY, fmt: 'f', prec: 2, want: '-Inf' },
    { name: 'prints a negative number with its sign', f: -2.25, fmt: 'f', prec: 1, want: '-2.2' },
  ];
  for (const c of cases) test(c.name, () => assert.equal(formatFloat(c.f, c.fmt, c.prec), c.want));
});
