// Property test: the Kubernetes CEL libraries re-implemented here (quantity, semver, ip, cidr) against Go, with the
// oracle evaluating the same closed expressions in the Kubernetes base CEL environment that upstream Cluster API
// compiles new x-kubernetes-validations rules in: the same values, the same runtime error messages, and the same
// expressions refused at compile time, over generated valid and invalid inputs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Optional } from '@marcbachmann/cel-js';
import { celErrorMessage, newCelEnvironment, withKubernetesFunctions } from '#shared/lang/cel/environment.ts';
import { namedFormats } from '#shared/lang/cel/format.ts';
import { invalidLiterals } from '#shared/lang/cel/literals.ts';

import { oracleRunSettings, startGoOracle } from '#test/support/oracles/go-oracle.ts';
import type { CelResult, GoOracle } from '#test/support/oracles/go-oracle.ts';
import {
  cidrString,
  formatInput,
  ipString,
  quantityString,
  semverString,
  urlString,
} from '#test/support/oracles/cel-library-arbitraries.ts';
import { quote } from '#shared/lang/go/strconv.ts';
import { formatFloat } from '#shared/lang/go/format-float.ts';

const env = newCelEnvironment();

/** A CEL value printed as the oracle prints it (test/support/oracles/go/main.go renderCel). */
function render(value: unknown): string {
  if (value instanceof Optional) return value.hasValue() ? `optional.of(${render(value.value())})` : 'optional.none()';
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'number') return formatFloat(value, 'e', -1);
  if (typeof value === 'string') return quote(value);
  if (Array.isArray(value)) return `[${value.map(render).join(', ')}]`;
  if (value instanceof Map) {
    return `{${[...value.entries()]
      .map(([k, v]) => `${render(k)}: ${render(v)}`)
      .sort()
      .join(', ')}}`;
  }
  if (value !== null && typeof value === 'object' && value.constructor === Object) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${render(k)}: ${render(v)}`)
      .sort()
      .join(', ')}}`;
  }
  if (value !== null && typeof value === 'object' && 'valueOf' in value && typeof value.valueOf() === 'bigint')
    return String(value.valueOf());
  return `unrenderable ${String(value)}`;
}

function evaluate(expression: string): CelResult {
  let program;
  try {
    program = env.parse(withKubernetesFunctions(expression));
    if (!program.check().valid || invalidLiterals(env, program.ast) !== undefined) return { compileError: true };
  } catch {
    return { compileError: true };
  }
  try {
    return { value: render(program({ self: null, oldSelf: null })) };
  } catch (error) {
    return { error: celErrorMessage(error) };
  }
}

const lit = (s: string) => JSON.stringify(s);

let go: GoOracle;
before(() => {
  go = startGoOracle();
});
after(() => go.close());

/**
 * Asserts each expression gives what Go gives. NOTE: with several invalid inputs, cel-js evaluates call arguments
 * right to left and cel-go left to right, so each reports a different input's error (docs/differences.md, "CEL rules"): then only
 * that both fail is checked.
 */
async function assertSameAsGo(expressions: readonly string[], severalInvalid: boolean): Promise<void> {
  const want = await go.ask({ op: 'cel', expressions });
  // NOTE: an error building the program (a literal regexp precompiled) refuses the rule at compile time too.
  const results = (want.results ?? []).map((r) => (r.error?.startsWith('program: ') ? { compileError: true } : r));
  expressions.forEach((expression, i) => {
    const got = evaluate(expression);
    const expected = results[i] ?? {};
    if (severalInvalid && got.error !== undefined && expected.error !== undefined) return;
    assert.deepEqual({ expression, ...got }, { expression, ...expected });
  });
}

/** Whether more than one of these expressions fails on its own. */
const severalFail = (...expressions: string[]) => expressions.filter((e) => evaluate(e).error !== undefined).length > 1;

describe('Kubernetes CEL libraries oracle (k8s.io/apiserver base environment)', () => {
  test('quantity: parsing, comparisons, integer and float views, arithmetic', async () => {
    await fc.assert(
      fc.asyncProperty(quantityString, quantityString, fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n), async (a, b, n) => {
        const qa = `quantity(${lit(a)})`;
        const qb = `quantity(${lit(b)})`;
        await assertSameAsGo(
          [
            `isQuantity(${lit(a)})`,
            `${qa}.isInteger()`,
            `${qa}.asInteger()`,
            `${qa}.asApproximateFloat()`,
            `sign(${qa})`,
            `${qa}.sign()`,
            `${qa}.compareTo(${qb})`,
            `${qa}.isGreaterThan(${qb})`,
            `${qa}.isLessThan(${qb})`,
            `${qa} == ${qb}`,
            `${qa}.add(${qb}).asApproximateFloat()`,
            `${qa}.add(${qb}).isInteger()`,
            `${qa}.sub(${qb}).asInteger()`,
            `${qa}.add(${n}).asInteger()`,
            `${qa}.sub(${n}).compareTo(${qb})`,
            `[${qa}].exists(q, q.isGreaterThan(${qb}) || q.isInteger())`,
            `cel.bind(q, ${qa}, q.isInteger())`,
            `${qa}.isGreaterThan(1)`,
          ],
          severalFail(qa, qb),
        );
      }),
      oracleRunSettings(150),
    );
  });

  test('semver: parsing (with and without normalizing), accessors, comparisons', async () => {
    await fc.assert(
      fc.asyncProperty(semverString, semverString, async (a, b) => {
        const sa = `semver(${lit(a)}, true)`;
        const sb = `semver(${lit(b)}, true)`;
        await assertSameAsGo(
          [
            `isSemver(${lit(a)})`,
            `isSemver(${lit(a)}, true)`,
            `semver(${lit(a)}).major()`,
            `${sa}.major()`,
            `${sa}.minor()`,
            `${sa}.patch()`,
            `${sa}.compareTo(${sb})`,
            `${sa}.isGreaterThan(${sb})`,
            `${sa}.isLessThan(${sb})`,
            `${sa} == ${sb}`,
            `${sa} < ${sb}`,
          ],
          severalFail(sa, sb),
        );
      }),
      oracleRunSettings(150),
    );
  });

  test('ip and cidr: parsing, printing, predicates, containment', async () => {
    await fc.assert(
      fc.asyncProperty(ipString, cidrString, cidrString, async (i, c, d) => {
        const ip = `ip(${lit(i)})`;
        const cidr = `cidr(${lit(c)})`;
        await assertSameAsGo(
          [
            `isIP(${lit(i)})`,
            `${ip}.family()`,
            `string(${ip})`,
            `ip.isCanonical(${lit(i)})`,
            `[${ip}.isUnspecified(), ${ip}.isLoopback(), ${ip}.isLinkLocalMulticast()]`,
            `[${ip}.isLinkLocalUnicast(), ${ip}.isGlobalUnicast()]`,
            `${ip} == ip(${lit(c.split('/')[0] ?? '')})`,
            `isCIDR(${lit(c)})`,
            `string(${cidr})`,
            `${cidr}.prefixLength()`,
            `string(${cidr}.masked())`,
            `string(${cidr}.ip())`,
            `${cidr}.containsIP(${lit(i)})`,
            `${cidr}.containsIP(${ip})`,
            `${cidr}.containsCIDR(${lit(d)})`,
            `${cidr}.containsCIDR(cidr(${lit(d)}))`,
            `${cidr} == cidr(${lit(d)})`,
            `${cidr}.masked() == cidr(${lit(d)}).masked()`,
          ],
          severalFail(ip, cidr, `cidr(${lit(d)})`, `ip(${lit(c.split('/')[0] ?? '')})`),
        );
      }),
      oracleRunSettings(200),
    );
  });

  test('url: parsing (request URIs), scheme, host, hostname, port, escaped path, query', async () => {
    await fc.assert(
      fc.asyncProperty(urlString, async (s) => {
        const u = `url(${lit(s)})`;
        await assertSameAsGo(
          [
            `isURL(${lit(s)})`,
            `${u}.getScheme()`,
            `${u}.getHost()`,
            `${u}.getHostname()`,
            `${u}.getPort()`,
            `${u}.getEscapedPath()`,
            `${u}.getQuery()`,
          ],
          false,
        );
      }),
      oracleRunSettings(300),
    );
  });

  test('sets, lists (version 3) and optional helpers over generated lists', async () => {
    const list = fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 6 }).map((xs) => `[${xs.join(', ')}]`);
    const words = fc.array(fc.constantFrom('a', 'b', 'B', 'ab', ''), { maxLength: 5 }).map((xs) => JSON.stringify(xs));
    const index = fc.integer({ min: -1, max: 7 });
    await fc.assert(
      fc.asyncProperty(list, list, words, index, index, fc.integer({ min: -1, max: 3 }), async (a, b, w, i, j, d) => {
        await assertSameAsGo(
          [
            `sets.contains(${a}, ${b})`,
            `sets.equivalent(${a}, ${b})`,
            `sets.intersects(${a}, ${b})`,
            `lists.range(${i})`,
            `${a}.distinct()`,
            `${w}.distinct()`,
            `${a}.sort()`,
            `${w}.sort()`,
            `${a}.reverse()`,
            `${a}.slice(${i}, ${j})`,
            `${a}.first()`,
            `${w}.last()`,
            `[${a}, ${b}].flatten()`,
            `[${a}, ${b}].flatten(${d})`,
            `optional.ofNonZeroValue(${i})`,
            `optional.ofNonZeroValue(${w})`,
            `optional.unwrap([${a}.first(), ${b}.last()])`,
            `[${w}.first()].unwrapOpt()`,
            `strings.quote(${w}.join('\\n"\t'))`,
          ],
          false,
        );
      }),
      oracleRunSettings(150),
    );
  });

  test('literal arguments cel-go validates at compile time: regexps of matches, durations, timestamps', async () => {
    const pattern = fc.constantFrom('[', 'a(', '(?i)a', '\\d+', 'a{2,1}', '(?P<n>a)', 'a**', '^[a-z]+$', '');
    const duration = fc.constantFrom('1s', '1x', '-1.5h', '1h30m', '', '1', '300ms', '2562047h');
    const timestamp = fc.constantFrom('2020-01-01T00:00:00Z', '2020-13-01T00:00:00Z', 'x', '2020-01-01T00:00:00+01:00');
    await fc.assert(
      fc.asyncProperty(pattern, duration, timestamp, async (p, d, t) => {
        await assertSameAsGo(
          [
            `"abc".matches(${lit(p)})`,
            `"abc".find(${lit(p)})`,
            `"abc".findAll(${lit(p)}, 1)`,
            `matches(${lit(p)}, "a")`,
            `matches("a", ${lit(p)})`,
            `duration(${lit(d)}) > duration("0s")`,
            `timestamp(${lit(t)}) > timestamp("2000-01-01T00:00:00Z")`,
          ],
          false,
        );
      }),
      oracleRunSettings(60),
    );
  });

  test('aggregate literals must be homogeneous, except inside format', async () => {
    const element = fc.constantFrom(
      ...['1', '-1', '2u', '1.5', '-1.5', '"a"', 'b"x"', 'true', 'null', '[1]', '[-2]', '["a"]', '[]', '[1, 2]'],
      ...['{"a": 1}', '{"b": 2}', '{"a": "b"}', '{}', 'size("ab")', '"a" + "b"', 'duration("1s")', '1 == 2'],
      ...['timestamp(0)', '[1].map(x, x * 2)', '"a,b".split(",")', 'quantity("1")', 'optional.of(1)', '"a"[0:1]'],
      ...['[[1, "a"]]', '{"c": 1.5}', '[{"d": [2u]}]'],
    );
    const key = fc.uniqueArray(fc.constantFrom('1', '2u', '"a"', 'true', '-3', '"b"'), { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(fc.array(element, { minLength: 1, maxLength: 3 }), key, async (items, keys) => {
        const list = `[${items.join(', ')}]`;
        const map = `{${keys.map((k, i) => `${k}: ${items[i % items.length] ?? '1'}`).join(', ')}}`;
        // NOTE: cel-go's check of format verbs against literal arguments (an optional or a quantity has no `%s`) is not done, and
        // cel-js keeps the keys of a map literal as strings.
        const formatted = items.some((i) => /optional|quantity/.test(i))
          ? []
          : [list, ...(keys.every((k) => k.startsWith('"')) ? [map] : [])];
        await assertSameAsGo(
          [
            `size(${list}) >= 0`,
            `size(${map}) >= 0`,
            `size([${list}, [1]]) >= 0`,
            ...formatted.map((aggregate) => `"%s".format([${aggregate}])`),
          ],
          false,
        );
      }),
      oracleRunSettings(100),
    );
  });

  test('format: every named format validates as apimachinery does, format.named finds them', async () => {
    const name = fc.constantFrom(...namedFormats, 'DNS1123Label', 'nope', '');
    await fc.assert(
      fc.asyncProperty(formatInput, name, async (s, n) => {
        await assertSameAsGo(
          [
            ...namedFormats.map((f) => `format.${f}().validate(${lit(s)})`),
            `format.named(${lit(n)}).hasValue()`,
            `format.named(${lit(n)}).orValue(format.uuid()).validate(${lit(s)})`,
            `format.named(${lit(n)}).value().validate(${lit(s)}).orValue([]).size()`,
            `[format.dns1123Label(), format.labelValue()].all(f, !f.validate(${lit(s)}).hasValue())`,
            `format.dns1123Label().validate(${lit(s)}) == optional.none()`,
            `format.labelValue().validate(${lit(s)}) != format.named(${lit(n)}).orValue(format.byte()).validate(${lit(s)})`,
            'optional.of(1) == optional.of(1.0)',
            'optional.of(2) != optional.of(1u)',
            'optional.of([1]) != optional.none()',
            'optional.of("a") == optional.of(1)',
            'optional.of(1) == 1',
            '[1].first() == optional.of(1) && optional.none() == optional.none()',
          ],
          false,
        );
      }),
      oracleRunSettings(200),
    );
  });

  test('two-variable comprehensions, sortBy, optMap, optFlatMap and optional indexing', async () => {
    const ints = fc.array(fc.integer({ min: -1, max: 4 }), { maxLength: 4 });
    const keys = fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { maxLength: 1 });
    await fc.assert(
      fc.asyncProperty(ints, keys, fc.integer({ min: 0, max: 3 }), async (list, mapKeys, n) => {
        const l = `[${list.join(', ')}]`;
        const m = `{${mapKeys.map((k, i) => `${lit(k)}: ${list[i] ?? n}`).join(', ')}}`;
        const predicates = ['v > 1', `i < ${n}`, '10 / v > 2', 'i == v'];
        await assertSameAsGo(
          [
            ...predicates.flatMap((p) =>
              ['all', 'exists', 'existsOne', 'exists_one'].map((q) => `${l}.${q}(i, v, ${p})`),
            ),
            `${m}.all(k, v, k != "b" && v < ${n})`,
            `${m}.exists(k, v, k == "a" || 10 / v > 3)`,
            `${l}.transformList(i, v, v * 2 + i)`,
            `${l}.transformList(i, v, i % 2 == 0, 10 / (v + 1))`,
            `${l}.transformMap(i, v, v + i)`,
            `${l}.transformMap(i, v, v > 0, [v])`,
            `${m}.transformMap(k, v, k + string(v))`,
            `${m}.transformList(k, v, k)`,
            `${l}.transformMapEntry(i, v, {string(v): i})`,
            `${l}.transformMapEntry(i, v, v != 0, {string(i): 10 / v})`,
            `${m}.transformMapEntry(k, v, {k + "x": v})`,
            `${l}.sortBy(x, -x)`,
            `${l}.sortBy(x, x % 3)`,
            `${l}.sortBy(x, string(x))`,
            `${l}.map(x, [x]).sortBy(x, x[0])`,
            `${l}.sortBy(x, x > 1 ? 1 : "a")`,
            `optional.of(${n}).optMap(x, x * 2)`,
            `${l}.first().optMap(x, 10 / x)`,
            `${l}.last().optFlatMap(x, x > 1 ? optional.of(x) : optional.none())`,
            `optional.none().optMap(x, x)`,
            `${l}[?${n}]`,
            `${l}[?${n}].orValue(-5)`,
            `${m}[?"a"]`,
            `${m}.?b.orValue(7)`,
          ],
          severalFail(`10 / ${list.includes(0) ? 0 : 1}`, `10 / ${list.filter((x) => x === 0).length > 1 ? 0 : 1}`),
        );
      }),
      oracleRunSettings(150),
    );
  });

  test('comprehension macros that do not compile', async () => {
    await assertSameAsGo(
      [
        '[1].all(i, i, true)',
        '[1].all(i, v, v)',
        '[1].exists(i, v, "a")',
        '"ab".sortBy(x, x)',
        '{"a": 1}.sortBy(x, x)',
        '1.all(i, v, true)',
        '[1].all(i.j, v, true)',
        'optional.of(1).optFlatMap(x, x)',
        '1.optMap(x, x)',
        '[1].transformMapEntry(i, v, v)',
        '[1].transformList(i, v, 1, v)',
        '[1].sortBy(x)',
      ],
      false,
    );
  });
});
