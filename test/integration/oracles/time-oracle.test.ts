// Oracle test: Go's time.Duration as text (shared/lang/go/time.ts) against Go's own time.ParseDuration,
// Duration.String and Duration.Round: named edge cases (units, fractions, signs, the int64 bounds, malformed text)
// and generated text and durations.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatDuration, parseDuration, roundDuration } from '#shared/lang/go/time.ts';
import { oracleRunSettings, startGoOracle } from '#test/support/oracles/go-oracle.ts';
import type { GoOracle } from '#test/support/oracles/go-oracle.ts';

let go: GoOracle;
before(() => {
  go = startGoOracle();
});
after(() => go.close());

const minDuration = -(1n << 63n);
const maxDuration = (1n << 63n) - 1n;

async function assertParseAsGo(inputs: readonly string[]): Promise<void> {
  const want = await go.ask({ op: 'duration', inputs });
  assert.deepEqual(
    inputs.map((input) => ({ input, nanos: parseDuration(input)?.toString() })),
    inputs.map((input, i) => ({ input, nanos: want.parsed?.[i]?.nanos })),
  );
}

async function assertFormatAndRoundAsGo(durations: readonly bigint[], roundTo: bigint): Promise<void> {
  const want = await go.ask({ op: 'duration', durations: durations.map(String), roundTo: String(roundTo) });
  assert.deepEqual(
    durations.map((d) => ({ d, text: formatDuration(d), rounded: roundDuration(d, roundTo).toString() })),
    durations.map((d, i) => ({ d, text: want.strings?.[i], rounded: want.rounded?.[i] })),
  );
}

describe('time oracle (Go time.ParseDuration, Duration.String, Duration.Round)', () => {
  test('parses the named edge cases as Go does', async () => {
    await assertParseAsGo([
      '0',
      '+0',
      '-0',
      '',
      '-',
      '.',
      '.s',
      's',
      '1',
      '1.5h',
      '.5s',
      '5.s',
      '1h2m3.004005006s',
      '1µs1μs1us',
      '1.9ns',
      '1.0000000000000000000000000001s',
      '0.333333333333333333h',
      '2562047h47m16.854775807s',
      '2562047h47m16.854775808s',
      '-2562047h47m16.854775808s',
      '9223372036854775807ns',
      '9223372036854775808ns',
      '-9223372036854775808ns',
      '99999999999999999999ns',
      '3000000h',
      '1d',
      '1 s',
      '1s ',
      '1e3s',
      '1..5s',
      '10m0s',
      '-1m30s',
      '--1s',
    ]);
  });

  test('parses generated text as Go does', async () => {
    const unit = fc.constantFrom('ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h', 'x', '');
    const number = fc.oneof(
      fc.nat({ max: 100_000 }).map(String),
      fc.tuple(fc.nat({ max: 9999 }), fc.stringMatching(/^[0-9]{0,12}$/)).map(([w, f]) => `${w}.${f}`),
      fc.stringMatching(/^[0-9]{15,21}$/),
    );
    const text = fc
      .tuple(fc.constantFrom('', '-', '+'), fc.array(fc.tuple(number, unit), { minLength: 1, maxLength: 4 }))
      .map(([sign, parts]) => sign + parts.map(([n, u]) => n + u).join(''));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(text, fc.string({ maxLength: 8 })), { maxLength: 20 }), assertParseAsGo),
      oracleRunSettings(100),
    );
  });

  test('prints and rounds the named durations as Go does', async () => {
    const named = [0n, 1n, -1n, 999n, 1_000n, 1_500n, 999_999n, 1_000_000n, 1_500_000_000n, minDuration, maxDuration];
    for (const roundTo of [0n, 1n, 1_000n, 1_000_000_000n, 3_600_000_000_000n, -5n]) {
      await assertFormatAndRoundAsGo(named, roundTo);
    }
  });

  test('prints and rounds generated durations as Go does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.bigInt({ min: minDuration, max: maxDuration }), { maxLength: 20 }),
        fc.bigInt({ min: 1n, max: 3_600_000_000_000n }),
        assertFormatAndRoundAsGo,
      ),
      oracleRunSettings(100),
    );
  });
});
